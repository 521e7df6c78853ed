"""The rules documents: one per game the engine registers, every option of the engine in it.

A player learns a game from ``docs/rules/<game>.md``. Each document's "Options" table must name
exactly the options the engine defines for that game (read from its options dataclass), with
every value the engine accepts and the engine's default, so a renamed or added option, or a
changed default, fails here until the document follows. And no document of the repository
may point at a file outside it: a user has only the repository.
"""

from __future__ import annotations

import ast
import dataclasses
import re
import typing
from pathlib import Path
from typing import Any, Literal

import pytest

from engine.game import Game
from engine.games import GAMES
from engine.options import option_name

ROOT = Path(__file__).resolve().parent.parent
RULES = ROOT / "docs" / "rules"
DOCS = sorted([ROOT / "README.md", *(ROOT / "docs").rglob("*.md")])

_INLINE_LINK = re.compile(r"!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
_REFERENCE_LINK = re.compile(r"^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)", re.MULTILINE)
_RELATIVE_PATH_IN_CODE = re.compile(r"`(\.\.?/[^`\s]+)`")
_EXTERNAL = re.compile(r"^[a-z][a-z0-9+.-]*:", re.IGNORECASE)  # http:, https:, mailto: ...


# --- reading a document ---------------------------------------------------------------------


def section(text: str, heading: str) -> str:
    """The text under a level-2 heading, up to the next level-2 heading."""
    match = re.search(rf"^## {re.escape(heading)}\s*$(.*?)(?=^## |\Z)", text, re.MULTILINE | re.DOTALL)
    return match.group(1) if match else ""


def options_table(text: str) -> dict[str, tuple[str, str]]:
    """The rows of the "Options" section's table: option name -> (values cell, default cell)."""
    rows: dict[str, tuple[str, str]] = {}
    for line in section(text, "Options").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        name = re.fullmatch(r"`([a-z0-9-]+)`", cells[0]) if len(cells) >= 4 else None
        if name:
            rows[name.group(1)] = (cells[1], cells[2])
    return rows


def slug(heading: str) -> str:
    """A heading's anchor as GitHub makes it."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    return {slug(h) for h in re.findall(r"^#{1,6}\s+(.+?)\s*#*\s*$", path.read_text(), re.MULTILINE)}


def link_targets(text: str) -> list[str]:
    """Every link target of a Markdown text, and every relative path written in code (`../x`)."""
    return [*_INLINE_LINK.findall(text), *_REFERENCE_LINK.findall(text), *_RELATIVE_PATH_IN_CODE.findall(text)]


def broken_links(path: Path, root: Path = ROOT) -> list[str]:
    """The local links of a document that do not lead to a file (or heading) of the repository."""
    problems = []
    for target in link_targets(path.read_text()):
        if _EXTERNAL.match(target):
            continue
        file_part, _, fragment = target.partition("#")
        file_part = file_part.split("?")[0]
        if not file_part:
            resolved = path
        elif file_part.startswith("/"):
            resolved = (root / file_part.lstrip("/")).resolve()
        else:
            resolved = (path.parent / file_part).resolve()
        if not resolved.is_relative_to(root):
            problems.append(f"{target}: outside the repository")
        elif not resolved.exists():
            problems.append(f"{target}: no such file in the repository")
        elif fragment and resolved.suffix == ".md" and fragment not in anchors(resolved):
            problems.append(f"{target}: {resolved.name} has no heading #{fragment}")
    return problems


# --- what the engine defines ----------------------------------------------------------------


def written(value: Any) -> str:
    """A value as croupier.toml, Setup and the table log write it."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def accepted_values(field: dataclasses.Field[Any], hint: Any) -> list[str]:
    """What the document must show of the values an option takes: each choice, or the bounds."""
    if typing.get_origin(hint) is Literal:
        return [f"`{written(v)}`" for v in typing.get_args(hint)]
    if hint is int:
        low, high = field.metadata["bounds"]
        return [f"`{low}`", f"`{high}`"]
    return ["`true`", "`false`"]  # bool (Nap's dealer-sits-out is bool | None until resolved)


def engine_options(game: Game) -> dict[str, tuple[list[str], str]]:
    """Each option's name -> (values the document must show, the default at the usual seat count)."""
    hints = typing.get_type_hints(game.options_type)
    defaults = game.options(None, game.default_players())  # resolves defaults that depend on players
    return {
        option_name(f.name): (accepted_values(f, hints[f.name]), f"`{written(getattr(defaults, f.name))}`")
        for f in dataclasses.fields(game.options_type)
    }


def rules_doc(name: str) -> Path:
    return RULES / f"{name}.md"


def engine_rule_names() -> set[str]:
    """Every rule name the engine gives a refusal: the first argument of each IllegalAction
    (or subclass) it builds."""
    names = set()
    for module in (ROOT / "engine").rglob("*.py"):
        for node in ast.walk(ast.parse(module.read_text())):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id in {"IllegalAction", "NotYourTurn"}
                and node.args
                and isinstance(node.args[0], ast.Constant)
            ):
                names.add(node.args[0].value)
    return names


def refusals_table(text: str) -> list[str]:
    """The rule names in the first column of the "What the table refuses" section's table."""
    return re.findall(r"^\|\s*`([a-z-]+)`\s*\|", section(text, "What the table refuses"), re.MULTILINE)


# --- the tests ------------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(GAMES))
def test_every_game_the_engine_registers_has_a_rules_document(name):
    path = rules_doc(name)
    assert path.is_file(), f"{GAMES[name].title} has no rules document at docs/rules/{name}.md"
    text = path.read_text()
    assert text.startswith(f"# {GAMES[name].title}"), f"docs/rules/{name}.md should be titled {GAMES[name].title}"
    for heading in ("Options",):
        assert section(text, heading).strip(), f"docs/rules/{name}.md has no '## {heading}' section"


def test_every_rules_document_is_for_a_game_the_engine_referees():
    documents = {p.stem for p in RULES.glob("*.md")} - {"README"}
    assert documents <= set(GAMES), f"documents for no game the engine knows: {sorted(documents - set(GAMES))}"


@pytest.mark.parametrize("name", sorted(GAMES))
def test_the_options_table_names_every_engine_option_its_values_and_default(name):
    rows = options_table(rules_doc(name).read_text())
    options = engine_options(GAMES[name])
    assert sorted(set(options) - set(rows)) == [], f"docs/rules/{name}.md does not describe these options"
    assert sorted(set(rows) - set(options)) == [], f"docs/rules/{name}.md describes options the engine lacks"
    for option, (values, default) in options.items():
        values_cell, default_cell = rows[option]
        missing = [v for v in values if v not in values_cell]
        assert not missing, f"{name} option {option}: the document does not list {missing}"
        assert default in default_cell, f"{name} option {option}: the engine's default is {default}, not {default_cell}"


@pytest.mark.parametrize("name", sorted(GAMES))
def test_every_refusal_a_document_names_is_a_rule_the_engine_gives(name):
    listed = refusals_table(rules_doc(name).read_text())
    assert listed, f"docs/rules/{name}.md lists no refusals"
    unknown = sorted(set(listed) - engine_rule_names())
    assert not unknown, f"docs/rules/{name}.md names rules the engine never gives: {unknown}"


def test_the_rules_are_linked_from_the_index_the_games_page_and_the_readme():
    index = RULES / "README.md"
    assert index.is_file(), "docs/rules/README.md (the index of the rules documents) is missing"
    for page in (index, ROOT / "docs" / "games.md"):
        text = page.read_text()
        base = "" if page == index else "rules/"
        unlinked = [n for n in sorted(GAMES) if f"]({base}{n}.md" not in text]
        assert not unlinked, f"{page.relative_to(ROOT)} does not link the rules of {unlinked}"
    assert "](docs/rules/" in (ROOT / "README.md").read_text(), "README.md does not link docs/rules/"


@pytest.mark.parametrize("path", DOCS, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_document_points_outside_the_repository(path):
    assert broken_links(path) == []


def test_the_link_check_finds_a_pointer_outside_and_a_missing_file(tmp_path):
    repo = tmp_path / "repo"
    (repo / "docs").mkdir(parents=True)
    (repo / "docs" / "there.md").write_text("# There\n\n## A heading\n")
    doc = repo / "docs" / "page.md"
    doc.write_text(
        "See `../shared/rules.md`, [ok](there.md#a-heading), [gone](missing.md), [up](../../x.md),\n"
        "[bad anchor](there.md#nowhere), [web](https://example.org/a.md) and [here](#top).\n\n# Top\n"
    )
    (tmp_path / "x.md").write_text("outside\n")
    assert broken_links(doc, repo.resolve()) == [
        "missing.md: no such file in the repository",
        "../../x.md: outside the repository",
        "there.md#nowhere: there.md has no heading #nowhere",
        "../shared/rules.md: no such file in the repository",
    ]
