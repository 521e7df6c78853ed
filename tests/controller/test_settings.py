"""Settings: a TOML file and CROUPIER_* overrides; every mistake named."""

from __future__ import annotations

from pathlib import Path

import pytest

from controller.settings import SettingsError, load_settings


def write(tmp_path, text):
    path = tmp_path / "croupier.toml"
    path.write_text(text)
    return path


def test_every_default_runs_in_simulation():
    settings = load_settings()
    assert settings.dealer.port == "sim" and settings.camera.source == "sim" and settings.panel.pin_factory == "mock"
    assert settings.table.game == "poley" and settings.api.host == "127.0.0.1"


def test_a_file_sets_values_and_the_environment_overrides_it(tmp_path, monkeypatch):
    path = write(tmp_path, '[dealer]\nport = "/dev/ttyUSB0"\n[table]\ngame = "nap"\nplayers = 5\n')
    settings = load_settings(path)
    assert settings.dealer.port == "/dev/ttyUSB0" and settings.table.players == 5
    monkeypatch.setenv("CROUPIER_DEALER__PORT", "socket://127.0.0.1:7001")
    assert load_settings(path).dealer.port == "socket://127.0.0.1:7001"


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("[dealer]\nbauds = 9600\n", "unknown setting 'dealer.bauds'"),
        ("[printer]\nport = 1\n", "unknown setting 'printer'"),
        ('[dealer]\nbaud = "fast"\n', "setting 'dealer.baud'"),
        ("[api]\nport = 70000\n", "setting 'api.port'"),
        ('[table]\ngame = "skat"\n', "unknown game 'skat'"),
        ('[table]\ngame = "nap"\nplayers = 7\n', "not 7"),
        ('[table]\noptions = {revoke = "maybe"}\n', "option 'revoke'"),
        ('[panel]\npin_factory = "wiringpi"\n', "setting 'panel.pin_factory'"),
        ("[dealer\n", "not valid TOML"),
    ],
)
def test_mistakes_are_named(tmp_path, text, words):
    with pytest.raises(SettingsError) as caught:
        load_settings(write(tmp_path, text))
    assert words in str(caught.value) and str(tmp_path) in str(caught.value)


def test_an_unknown_environment_key_is_named(monkeypatch):
    monkeypatch.setenv("CROUPIER_DEALER__BAUDS", "9600")
    with pytest.raises(SettingsError, match=r"unknown setting 'dealer\.bauds'"):
        load_settings()


def test_a_missing_file_is_a_clear_error(tmp_path):
    with pytest.raises(SettingsError, match="cannot read the settings file"):
        load_settings(tmp_path / "absent.toml")


EXAMPLE = Path(__file__).parents[2] / "croupier.example.toml"


def test_the_example_file_names_every_setting_with_its_default():
    import tomllib
    import typing

    from controller.settings import Settings

    assert load_settings(EXAMPLE) == Settings()  # its values are the defaults
    text = EXAMPLE.read_text()
    written = tomllib.loads(text)
    for section, field in Settings.model_fields.items():
        if getattr(Settings(), section) is None:  # a section left out by default ([club]): shown commented out
            assert f"# [{section}]" in text, section
            (model,) = [t for t in typing.get_args(field.annotation) if t is not type(None)]
            assert all(f"# {key} = " in text for key in model.model_fields), section
            continue
        assert f"[{section}]" in text, section
        for key in type(getattr(Settings(), section)).model_fields:
            # every key is set, or shown commented out where its default is "none" (camera.model, table.players)
            assert key in written[section] or f"# {key} = " in text, f"{section}.{key}"


def test_croupier_toml_in_the_folder_it_starts_in_is_read(tmp_path, monkeypatch):
    write(tmp_path, '[table]\ngame = "nap"\n')
    monkeypatch.chdir(tmp_path)
    assert load_settings().table.game == "nap"
    assert load_settings(write(tmp_path / "..", '[table]\ngame = "shelem"\n')).table.game == "shelem"  # --config wins


@pytest.mark.parametrize("check_ink", [True, False])
def test_the_camera_check_ink_setting_reaches_the_card_reader(tmp_path, check_ink):
    from controller.devices import _camera

    settings = load_settings(write(tmp_path, f"[camera]\ncheck_ink = {str(check_ink).lower()}\n"))
    service = _camera(settings)  # the table's camera, as croupier serve builds it (the doctor's too: card_reader)
    assert service is not None
    assert service.observer.detector.readers.check_ink is check_ink
