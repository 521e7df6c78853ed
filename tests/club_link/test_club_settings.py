"""The [club] section: a table publishes only with it; every mistake in it is named."""

from __future__ import annotations

import pytest

from controller.settings import SettingsError, load_settings

GOOD = 'broker = "mqtt://broker.local"\nclub = "oak"\ntable = "t3"\npassword = "pw"\n'


def write(tmp_path, text):
    path = tmp_path / "croupier.toml"
    path.write_text(text)
    return path


def test_no_section_means_no_club():
    assert load_settings().club is None


def test_a_good_section_gives_the_broker_and_the_credentials(tmp_path):
    club = load_settings(write(tmp_path, "[club]\n" + GOOD)).club
    assert (club.host, club.port, club.tls, club.user, club.secret()) == ("broker.local", 1883, False, "t3", "pw")
    assert "pw" not in repr(club)  # a password is never printed with the settings
    tls = load_settings(write(tmp_path, "[club]\n" + GOOD.replace("mqtt://", "mqtts://"))).club
    assert (tls.port, tls.tls) == (8883, True)


def test_the_password_may_come_from_a_file_or_the_environment(tmp_path, monkeypatch):
    secret = tmp_path / "secret"
    secret.write_text("s3cret\n")
    text = GOOD.replace('password = "pw"', f'password_file = "{secret}"\nusername = "table-3"')
    club = load_settings(write(tmp_path, "[club]\n" + text)).club
    assert (club.user, club.secret()) == ("table-3", "s3cret")
    for key, value in {"BROKER": "mqtts://b:8884", "CLUB": "oak", "TABLE": "t9", "PASSWORD": "env"}.items():
        monkeypatch.setenv(f"CROUPIER_CLUB__{key}", value)
    club = load_settings().club
    assert (club.port, club.table, club.secret()) == (8884, "t9", "env")


@pytest.mark.parametrize(
    ("replace", "words"),
    [
        (
            ("mqtt://broker.local", "http://broker.local"),
            "setting 'club.broker': 'http://broker.local' is not a broker URL",
        ),
        (("mqtt://broker.local", "mqtt://u:p@broker.local"), "not in the URL"),
        (("mqtt://broker.local", "mqtt://broker.local:99999"), "has no valid port"),
        (("mqtt://broker.local", "mqtt://broker.local/x"), "nothing after the port"),
        (('table = "t3"', 'table = "Table 3"'), "setting 'club.table': 'Table 3' is not a name of 1-32 characters"),
        (('table = "t3"', f'table = "{"t" * 33}"'), "setting 'club.table'"),
        (('club = "oak"', 'club = "o/k"'), "setting 'club.club'"),
        (('club = "oak"\n', ""), "setting 'club.club': Field required"),
        (('password = "pw"\n', ""), "password or as password_file"),
        (('password = "pw"', 'password = "pw"\npassword_file = "pw.txt"'), "password or as password_file"),
        (('password = "pw"', 'password_file = "absent.txt"'), "password_file absent.txt cannot be read"),
        (('password = "pw"', 'passwd = "pw"'), "unknown setting 'club.passwd'"),
        (
            ('password = "pw"', 'password = "pw"\nca_file = "absent.pem"'),
            "setting 'club.ca_file': absent.pem is not a file",
        ),
        (('password = "pw"', 'password = "pw"\nreconnect_max_s = 0'), "setting 'club.reconnect_max_s'"),
    ],
)
def test_mistakes_are_named(tmp_path, replace, words):
    with pytest.raises(SettingsError) as caught:
        load_settings(write(tmp_path, "[club]\n" + GOOD.replace(*replace)))
    assert words in str(caught.value)


def test_tls_files_need_an_mqtts_broker_and_a_key_needs_its_certificate(tmp_path):
    pem = tmp_path / "ca.pem"
    pem.write_text("-----BEGIN CERTIFICATE-----\n")
    with pytest.raises(SettingsError, match="are for an mqtts:// broker"):
        load_settings(write(tmp_path, "[club]\n" + GOOD + f'ca_file = "{pem}"\n'))
    tls = "[club]\n" + GOOD.replace("mqtt://", "mqtts://")
    with pytest.raises(SettingsError, match="key_file needs the cert_file"):
        load_settings(write(tmp_path, tls + f'key_file = "{pem}"\n'))
    empty = tmp_path / "empty"
    empty.write_text("\n")
    with pytest.raises(SettingsError, match="is empty"):
        load_settings(write(tmp_path, tls.replace('password = "pw"', f'password_file = "{empty}"')))
