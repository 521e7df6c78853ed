"""``croupier mat`` and ``croupier vision``: the play mat and the camera."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from controller.cli_common import app, console, fail, vision_app


@app.command()
def mat(
    out: Annotated[Path, typer.Option(help="Where to write the mat: a .pdf or a .png file.")],
    seats: Annotated[int, typer.Option(help="Seats around the table: 4 or 6.")] = 4,
    size: Annotated[str, typer.Option(help="Sheet size: a2 or a3 (landscape).")] = "a2",
    dpi: Annotated[int, typer.Option(min=50, max=600, help="Print resolution.")] = 150,
) -> None:
    """Write the printable play mat: four ArUco markers, one zone per seat and a centre area."""
    from engine.seat_names import SeatNames
    from vision.mat import MatError, MatLayout
    from vision.mat_print import MatOutputError, write_mat

    try:
        layout = MatLayout.create(seats, size.lower())
        # The seats' zones carry the names the page and the terminal give them: North, East, ...
        write_mat(layout, out, dpi, SeatNames.of(seats).names)
    except (MatError, MatOutputError) as exc:
        fail(str(exc))


@vision_app.command("scan")
def vision_scan(
    images: Annotated[list[Path], typer.Argument(help="Photos or frames of cards on a table.")],
    as_json: Annotated[bool, typer.Option("--json", help="One JSON line per image.")] = False,
) -> None:
    """Find and read every face-up card in each image (coordinates in image pixels)."""
    import cv2

    from vision.networks import ModelError
    from vision.scan import scan

    for path in images:
        frame = cv2.imread(str(path), cv2.IMREAD_COLOR) if path.is_file() else None
        if frame is None:
            fail(f"cannot read {path}: {'not an image' if path.is_file() else 'no such file'}")
        try:
            found = [r for r in scan(frame) if r.card is not None]
        except ModelError as exc:
            fail(str(exc))
        if as_json:
            doc = {"image": str(path), "cards": [r.to_json() for r in found]}
            sys.stdout.write(json.dumps(doc) + "\n")
        else:
            listing = ", ".join(f"{r.card} ({r.confidence:.2f})" for r in found) or "no card"
            console.print(f"{path}: {listing}", highlight=False)


@vision_app.command("check")
def vision_check(
    deck: Annotated[Path, typer.Option(help="An enrolled deck's folder (croupier vision enroll).")],
) -> None:
    """How well the reader reads an enrolled deck: each face laid on a plain table and read."""
    from vision.enrol import EnrolError, check_deck

    try:
        results = check_deck(deck)
    except EnrolError as exc:
        fail(str(exc))
    missed = [f"{card} (read {read or 'nothing'})" for card, read in results if read != card]
    console.print(f"{len(results) - len(missed)} of {len(results)} cards of {deck} read right", highlight=False)
    if missed:
        console.print("not read right: " + ", ".join(missed), highlight=False)


@vision_app.command("watch")
def vision_watch(
    source: Annotated[str, typer.Argument(help="picamera2, uvc:N, file:VIDEO, folder:IMAGES, or sim (a demo trick).")],
    seats: Annotated[int, typer.Option(help="Seats on the mat: 4 or 6.")] = 4,
    size: Annotated[str, typer.Option(help="The mat's sheet: a2 or a3.")] = "a2",
    frames: Annotated[int | None, typer.Option(min=1, help="Stop after this many frames.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="One JSON line per event.")] = False,
) -> None:
    """Follow the table through the camera and print each card played and each trick cleared."""
    from engine.seat_names import SeatNames
    from vision.mat import MatError, MatLayout
    from vision.observe import Observer
    from vision.sources import SourceError
    from vision.tracker import CardPlayed, Tracker

    try:
        layout = MatLayout.create(seats, size.lower())
    except MatError as exc:
        fail(str(exc))
    observer = Observer(layout)
    tracker = Tracker([z.name for z in layout.zones if z.seat is not None])
    seat_of = {z.name: z.seat for z in layout.zones if z.seat is not None}  # the zone's seat, for its name
    names = SeatNames.of(seats)
    try:
        camera = _open_camera(source, layout)
        count = 0
        while (frames is None or count < frames) and (frame := camera.read()) is not None:
            count += 1
            for event in tracker.update(observer.observe(frame)):
                if isinstance(event, CardPlayed):
                    doc = {"event": "card_played", "seat": event.seat, "card": str(event.card), "frame": event.frame}
                    text = f"frame {event.frame}: {names(seat_of[event.seat])} played {event.card.name()}"
                else:
                    doc = {"event": "trick_cleared", "cards": [str(c) for c in event.cards], "frame": event.frame}
                    text = f"frame {event.frame}: trick cleared ({' '.join(map(str, event.cards))})"
                if as_json:
                    sys.stdout.write(json.dumps(doc) + "\n")
                    sys.stdout.flush()
                else:
                    console.print(text, highlight=False)
        camera.close()
    except SourceError as exc:
        fail(str(exc))


def _open_camera(spec: str, layout: Any) -> Any:
    """A frame source; ``sim`` is the simulated camera playing one demo trick on this mat."""
    from vision.sources import open_source

    if spec != "sim":
        return open_source(spec)
    import numpy as np

    from engine.cards import cards
    from simulators.camera import Scene, SimulatedCamera
    from simulators.scenes import tilted_view, trick_scenes

    rng = np.random.default_rng(1)
    view = tilted_view(rng, (1280, 720), "wood", layout)
    played = cards("QH 7D AS KH KS 2C")[: layout.seats]
    look = Scene(light_falloff=0.3, blur_sigma=0.6, noise_sigma=3.0)
    # Cards lie still long enough for the tracker's vote (the first still frame is still "moving").
    return SimulatedCamera(view, trick_scenes(rng, layout, played, look, still_frames=6, gathered_frames=8))


PACK_NAMES = ("standard-52", "with-jokers-54", "poley-22", "fifty-six-48")


@vision_app.command("enroll")
def vision_enroll(
    out: Annotated[Path, typer.Option(help="The deck folder to write (croupier vision check --deck FOLDER).")],
    photos: Annotated[
        Path | None, typer.Argument(help="A folder of photos, one card each, named by code: QS.jpg, TH.png.")
    ] = None,
    source: Annotated[
        str | None,
        typer.Option(help="Enrol live, card by card: picamera2, uvc:N, file:VIDEO, folder:IMAGES or sim."),
    ] = None,
    pack: Annotated[str, typer.Option(help="Which cards to ask for (with --source): " + ", ".join(PACK_NAMES))] = (
        "standard-52"
    ),
    resume: Annotated[bool, typer.Option(help="Keep the cards already in --out and ask only for the rest.")] = False,
    timeout: Annotated[float, typer.Option(min=1, help="Seconds to wait for each card before giving up.")] = 120,
    seats: Annotated[int, typer.Option(help="Seats on the mat (for sim): 4 or 6.")] = 4,
    size: Annotated[str, typer.Option(help="The mat's sheet (for sim): a2 or a3.")] = "a2",
    sim_deck: Annotated[
        str, typer.Option(help="The design the simulated operator shows: project or one of `vision scan`'s designs.")
    ] = "project",
    only: Annotated[str | None, typer.Option(hidden=True, help="Tests: only these codes of the pack.")] = None,
) -> None:
    """Record a deck's own faces (to check the reader on, or to train it with): from one photo of
    each card, or (--source) by showing each card to the camera in turn."""
    if (photos is None) == (source is None):
        fail("give either a folder of PHOTOS or --source CAMERA (not both)")
    if photos is not None:
        _enrol_photos(photos, out)
    else:
        assert source is not None
        _enrol_live(source, out, pack, resume, timeout, seats, size, sim_deck, only)


def _enrol_photos(photos: Path, out: Path) -> None:
    from vision.enrol import EnrolError, enrol_folder

    try:
        enrolled = enrol_folder(photos, out)
    except EnrolError as exc:
        fail(str(exc))
    console.print(
        f"{len(enrolled)} cards enrolled into {out}: check them with croupier vision check --deck {out}",
        highlight=False,
    )


def _enrol_live(
    spec: str,
    out: Path,
    pack: str,
    resume: bool,
    timeout: float,
    seats: int,
    size: str,
    sim_deck: str,
    only: str | None,
) -> None:
    """The guided enrolment: the terminal side (prompts, progress, Ctrl-C); the logic is in
    ``vision.enrol_live``."""
    import time

    from vision.enrol import EnrolError
    from vision.enrol_live import Enrolment, pack_cards, run_enrolment, saved_faces
    from vision.mat import MatError, MatLayout
    from vision.sources import SourceError

    try:
        cards = _chosen(pack_cards(pack), only)
        known = saved_faces(out)
        layout = MatLayout.create(seats, size.lower())
    except (EnrolError, MatError) as exc:
        fail(str(exc))
    if known and not resume:
        fail(f"{out} already holds {len(known)} cards: add --resume to continue it, or choose another --out")
    enrolment = Enrolment(cards, out, known, timeout_s=timeout)
    if enrolment.done:
        console.print(f"{enrolment.done} of {enrolment.total} cards already in {out}: asking for the rest.")
    try:
        camera = _open_enrol_camera(spec, layout, sim_deck)
    except SourceError as exc:
        fail(str(exc))
    console.print("Clear the mat: the first card will be asked for once no card is in view.")
    try:
        run_enrolment(camera, enrolment, _teller(camera), time.monotonic)
    except KeyboardInterrupt:
        # soft_wrap: a path broken across lines could not be copied back into the command.
        console.print(
            f"\nStopped. {_kept(enrolment)}; to continue, run the same command with --resume.", soft_wrap=True
        )
        raise typer.Exit(130) from None
    except (SourceError, EnrolError) as exc:
        fail(f"{exc}. {_kept(enrolment)}; to continue, run the same command with --resume", code=1)
    finally:
        camera.close()


def _chosen(cards: tuple[Any, ...], only: str | None) -> list[Any]:
    """The pack, or (a hidden test hook) the part of it named in ``only``."""
    if only is None:
        return list(cards)
    from vision.enrol import EnrolError

    wanted = set(only.upper().split())
    chosen = [c for c in cards if str(c) in wanted]
    if len(chosen) != len(wanted):
        raise EnrolError(f"--only {only!r}: not all of these are cards of the pack")
    return chosen


def _kept(enrolment: Any) -> str:
    return f"{enrolment.done} of {enrolment.total} cards are saved in {enrolment.deck}"


def _teller(camera: Any) -> Any:
    """What the terminal shows for each event; a simulated operator is told the prompts too,
    the way a person reads them off the screen."""
    from vision.enrol_live import Captured, Finished, Prompt, Refused

    def tell(event: Any) -> None:
        if isinstance(event, Prompt):
            card = event.card
            console.print(
                f"[bold][{event.number}/{event.total}][/bold] Show {card.name()} ({card}) face up, alone, "
                "in the middle of the mat"
            )
            if hasattr(camera, "ask"):
                camera.ask(card)
        elif isinstance(event, Captured):
            console.print(f"  [green]got {event.card}[/green]: take it away", highlight=False)
        elif isinstance(event, Refused):
            console.print(f"  [red]{event.message}[/red] (take it away first)", highlight=False)
        elif isinstance(event, Finished):
            console.print(
                f"{event.total} cards enrolled into {event.deck}: "
                f"check them with croupier vision check --deck {event.deck}",
                highlight=False,
            )

    return tell


def _open_enrol_camera(spec: str, layout: Any, sim_deck: str) -> Any:
    """A frame source; ``sim`` is a simulated operator showing the cards asked for on this mat."""
    from vision.sources import SourceError, open_source

    if spec != "sim":
        return open_source(spec)
    from simulators.operator import SimulatedOperator
    from vision.decks import DECKS, DeckError, deck_faces

    if sim_deck == "project":
        return SimulatedOperator.on_mat(layout)
    if sim_deck not in DECKS:
        raise SourceError(f"unknown --sim-deck {sim_deck!r} (use project, {', '.join(DECKS)})")
    try:
        return SimulatedOperator.on_mat(layout, deck=dict(deck_faces(sim_deck)))
    except DeckError as exc:
        raise SourceError(str(exc)) from exc
