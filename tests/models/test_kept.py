"""models.kept: the last values by key, least recently used dropped first."""

from __future__ import annotations

from models.kept import Kept, digest


def test_a_kept_value_is_not_made_again_and_the_least_recent_goes_first() -> None:
    made: list[str] = []
    kept: Kept[str] = Kept(2)

    def get(key: str) -> str:
        return kept.get(key, lambda: made.append(key) or key.upper())

    assert [get("a"), get("b"), get("a")] == ["A", "B", "A"] and made == ["a", "b"]
    get("c")                      # "b" is the least recently used: dropped
    assert len(kept) == 2 and made == ["a", "b", "c"]
    get("a")
    get("b")
    assert made == ["a", "b", "c", "b"]


def test_the_digest_names_the_content_in_order() -> None:
    assert digest(b"ab", b"c") == digest(b"abc") != digest(b"c", b"ab") and len(digest(b"")) == 32
