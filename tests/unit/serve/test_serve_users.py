"""USERS.toml and tokens: only a salted scrypt hash is stored, the name comes from the token, and
every malformed file or token is refused plainly."""

from __future__ import annotations

import base64
import hashlib
import tomllib
from pathlib import Path

import pytest

from goldset_tui.cli import main
from goldset_tui.errors import InputError
from goldset_tui.serve.users import (
    add_labeller,
    labeller_for,
    read_labellers,
    remove_labeller,
    token_matches,
)


def test_the_file_keeps_a_salted_scrypt_hash_and_never_the_token(tmp_path: Path) -> None:
    users = tmp_path / "team.toml"
    token = add_labeller(users, "alice")
    text = users.read_text(encoding="utf-8")
    ident, secret = token.split(".")
    assert secret not in text and token not in text
    entry = tomllib.loads(text)["labellers"]["alice"]
    assert entry["id"] == ident
    # Recompute the hash with hashlib directly from the stored fields: it is scrypt of the token.
    kind, n, r, p, salt, key = entry["hash"].split("$")
    assert kind == "scrypt"
    again = hashlib.scrypt(
        token.encode(), salt=base64.b64decode(salt), n=int(n), r=int(r), p=int(p), dklen=32
    )
    assert again == base64.b64decode(key)
    # Salted: the same token hashed twice gives two different stored forms.
    other = add_labeller(users, "bob")
    bob = tomllib.loads(users.read_text(encoding="utf-8"))["labellers"]["bob"]
    assert bob["hash"].split("$")[4] != salt and other != token


def test_the_name_comes_from_the_token_and_nothing_else_gets_in(tmp_path: Path) -> None:
    users = tmp_path / "team.toml"
    alice, bob = add_labeller(users, "alice"), add_labeller(users, "bob")
    known = read_labellers(users)
    assert labeller_for(known, alice) == "alice"
    assert labeller_for(known, bob) == "bob"
    alice_id, alice_secret = alice.split(".")
    bob_id, bob_secret = bob.split(".")
    wrong = [
        "",
        "alice",
        alice_id,
        f"{alice_id}.{bob_secret}",  # a real secret under another labeller's id
        f"{bob_id}.{alice_secret}",
        alice[:-1] + ("A" if alice[-1] != "A" else "B"),  # one character off
        alice + "x",
        f"{'0' * 12}.{alice_secret}",  # an unknown id
        alice.upper(),
    ]
    assert [labeller_for(known, token) for token in wrong] == [None] * len(wrong)


def test_a_removed_labeller_is_out_and_a_name_cannot_be_added_twice(tmp_path: Path) -> None:
    users = tmp_path / "team.toml"
    token = add_labeller(users, "alice")
    with pytest.raises(InputError, match="already has a token"):
        add_labeller(users, "alice")
    remove_labeller(users, "alice")
    assert labeller_for(read_labellers(users), token) is None
    with pytest.raises(InputError, match="no labeller 'alice'"):
        remove_labeller(users, "alice")
    new = add_labeller(users, "alice")
    assert labeller_for(read_labellers(users), new) == "alice"


@pytest.mark.parametrize("name", ["", "  ", " alice", "al\x1b[2Jice", "a\nb", "x" * 101])
def test_names_that_cannot_be_shown_plainly_are_refused(tmp_path: Path, name: str) -> None:
    with pytest.raises(InputError):
        add_labeller(tmp_path / "team.toml", name)
    assert not (tmp_path / "team.toml").exists()


def test_a_tampered_hash_never_matches_and_a_bad_file_names_its_line(tmp_path: Path) -> None:
    users = tmp_path / "team.toml"
    token = add_labeller(users, "alice")
    good = tomllib.loads(users.read_text(encoding="utf-8"))["labellers"]["alice"]["hash"]
    assert token_matches(token, good)
    # Asking for 2^30 blocks (a memory bomb), a short key, or another algorithm: no match, no work.
    for bad in (
        good.replace("$16384$", "$1073741824$"),
        good.rsplit("$", 1)[0] + "$AAAA",
        good.replace("scrypt$", "md5$"),
    ):
        assert not token_matches(token, bad)
    users.write_text(
        '[labellers.alice]\nid = "0123456789ab"\nhash = "x"\n\n[labellers.bob]\nid = "zz"\n',
        encoding="utf-8",
    )
    with pytest.raises(InputError) as err:
        read_labellers(users)
    assert err.value.line == 1 and "hash" in err.value.message
    users.write_text(
        '[labellers."al\\u001b[2Jice"]\nid = "0123456789ab"\nhash = "' + good + '"\n',
        encoding="utf-8",
    )
    with pytest.raises(InputError) as err:
        read_labellers(users)  # a hand-edited name with an escape sequence
    assert err.value.line == 1 and "control characters" in err.value.message
    assert "\x1b" not in str(err.value)
    users.write_text("[labellers.alice\n", encoding="utf-8")
    with pytest.raises(InputError) as err:
        read_labellers(users)
    assert err.value.line == 1
    with pytest.raises(InputError, match="no such file"):
        read_labellers(tmp_path / "missing.toml")


def test_add_user_prints_the_token_once_on_stdout(tmp_path: Path, capsys) -> None:
    users = tmp_path / "team.toml"
    assert main(["serve", "--add-user", "alice", "--users", str(users)]) == 0
    out, err = capsys.readouterr()
    token = out.strip()
    assert labeller_for(read_labellers(users), token) == "alice"
    assert token not in err and "shown only this once" in err
    assert main(["serve", "--remove-user", "alice", "--users", str(users)]) == 0
    assert read_labellers(users) == {}


def test_add_user_into_a_folder_that_does_not_exist_is_refused(tmp_path: Path, capsys) -> None:
    # It used to create the folders: a mistyped path left the token in a file no server reads.
    users = tmp_path / "typo" / "team.toml"
    assert main(["serve", "--add-user", "alice", "--users", str(users)]) == 2
    out, err = capsys.readouterr()
    assert out == "" and "folder does not exist" in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "typo").exists()


def test_an_entry_s_quick_check_is_64_bits_of_hmac_keyed_by_its_salt(tmp_path: Path) -> None:
    import hmac

    from goldset_tui.serve.users import fails_check

    users = tmp_path / "team.toml"
    token = add_labeller(users, "alice")
    entry = tomllib.loads(users.read_text())["labellers"]["alice"]
    salt = base64.b64decode(entry["hash"].split("$")[4])
    # Recomputed here from the standard library, not by the function under test.
    assert entry["check"] == hmac.new(salt, token.encode(), hashlib.sha256).hexdigest()[:16]
    (alice,) = read_labellers(users).values()
    assert not fails_check(alice, token)
    ident, secret = token.split(".")
    for wrong in (
        f"{ident}.{'A' * 43}",
        f"{ident}.{secret[:-1]}{'B' if secret[-1] != 'B' else 'C'}",
    ):
        assert fails_check(alice, wrong)
    # An entry written before it had no check: scrypt alone decides, as it always did.
    assert not fails_check(type(alice)(alice.name, alice.id, alice.hash), f"{ident}.{'A' * 43}")


def test_a_hand_edited_check_is_refused_naming_the_line(tmp_path: Path) -> None:
    users = tmp_path / "team.toml"
    add_labeller(users, "alice")
    text = users.read_text()
    start = text.index('check = "') + len('check = "')
    users.write_text(text[:start] + "zz" + text[start + 2 :])
    with pytest.raises(InputError) as refused:
        read_labellers(users)
    line = next(n for n, t in enumerate(text.splitlines(), 1) if t.startswith("[labellers.alice]"))
    assert str(refused.value) == (
        f"{users}:{line}: labeller 'alice': check must be 16 hex digits goldset wrote"
    )
