from __future__ import annotations

import pytest

from models.params import BipedParams, LinkParams


def test_paper_table_1() -> None:
    p = BipedParams.paper()
    assert p.total_mass == pytest.approx(55.33, abs=1e-9)
    assert (p.trunk.length, p.thigh.length, p.shank.length) == (0.788, 0.406, 0.473)
    assert (p.trunk.mass, p.thigh.mass, p.shank.mass) == (37.63, 5.53, 3.32)
    # uniform rods: J = m l^2 / 12 within the table's rounding
    for link in (p.trunk, p.thigh, p.shank):
        assert link.inertia == pytest.approx(link.mass * link.length**2 / 12, rel=2e-3)


def test_scaled_reproduces_paper_subject_within_one_percent() -> None:
    s, p = BipedParams.scaled(mass=55.33, height=1.66), BipedParams.paper()
    assert s.total_mass == pytest.approx(55.33, rel=1e-12)
    for a, b in ((s.trunk, p.trunk), (s.thigh, p.thigh), (s.shank, p.shank)):
        assert a.length == pytest.approx(b.length, rel=0.011)
        assert a.mass == pytest.approx(b.mass, rel=0.005)


def test_scaled_is_proportional() -> None:
    a, b = BipedParams.scaled(70, 1.7), BipedParams.scaled(140, 1.7)
    assert b.thigh.mass == pytest.approx(2 * a.thigh.mass)
    assert b.thigh.length == pytest.approx(a.thigh.length)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [({"mass": 0, "height": 1.7}, "mass"), ({"mass": -5, "height": 1.7}, "mass"),
     ({"mass": 70, "height": 0}, "height"), ({"mass": float("nan"), "height": 1.7}, "mass"),
     ({"mass": 70, "height": 9.0}, "height")],
)
def test_scaled_rejects_non_physical(kwargs: dict[str, float], match: str) -> None:
    with pytest.raises(ValueError, match=match):
        BipedParams.scaled(**kwargs)


@pytest.mark.parametrize(
    ("link", "match"),
    [(LinkParams(0.4, 0.5, 5, 0.1), "must lie on the link"), (LinkParams(0.4, 0.2, 0, 0.1), "mass"),
     (LinkParams(-0.4, 0.2, 5, 0.1), "length"), (LinkParams(0.4, 0.2, 5, -0.1), "inertia")],
)
def test_params_reject_non_physical(link: LinkParams, match: str) -> None:
    good = BipedParams.paper()
    with pytest.raises(ValueError, match=match):
        BipedParams(trunk=good.trunk, thigh=link, shank=good.shank)
