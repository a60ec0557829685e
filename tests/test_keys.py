"""The table's secrets: the key and the PIN, kept beside the journal across a restart."""

from __future__ import annotations

import pytest

from companion.keys import check_pin, keep_pin_beside, key_file, pin_file, set_pin_beside


@pytest.mark.parametrize("pin", ["123", "1234567890123", "12a4", "１２３４", 1234, None])
def test_a_pin_is_four_to_twelve_ascii_digits(pin):
    with pytest.raises(ValueError, match="pin: 4 to 12 digits"):
        check_pin(pin)


def test_the_key_is_kept_beside_the_journal_and_read_back(tmp_path):
    db = str(tmp_path / "j.db")
    key = key_file(db)
    assert len(key) == 32 and key_file(db) == key
    assert (tmp_path / "j.db.key").stat().st_mode & 0o777 == 0o600
    assert key_file(None) != key_file(None)  # no journal: a fresh one each time


def test_a_pin_set_is_the_pin_of_the_next_start(tmp_path):
    db = str(tmp_path / "j.db")
    assert set_pin_beside(db, "4321") == "4321"
    assert pin_file(db, None) == "4321"
    assert pin_file(db, "9999") == "9999"  # one given on the command line wins


def test_a_new_pin_is_kept_only_when_asked(tmp_path):
    db = str(tmp_path / "j.db")
    first = pin_file(db, None)
    assert len(first) == 6 and first.isdigit() and not (tmp_path / "j.db.pin").exists()
    keep_pin_beside(db, first)
    assert pin_file(db, None) == first
