"""strata.imaging: the gradient, migrate and born on a small configuration, held against
each other and against strata.wave.run (the same forward run), and their refusals."""
import numpy as np
import pytest

import strata

CFG = {
    "grid": {"shape": [26, 20, 24], "spacing": 10.0},
    "model": {"type": "layered", "layers": [{"top": 0, "velocity": 1500}, {"top": 120, "velocity": 1900}]},
    "time": {"steps": 70},
    "scheme": {"order": 8, "precision": "f64"},
    "sources": [{"position": [125.0, 95.0, 60.0], "frequency": 18.0}],
    "receivers": {"lines": [{"start": [65.0, 95.0, 65.0], "end": [185.0, 95.0, 65.0], "count": 7}]},
    "boundary": {"zmin": "free", "pml": {"width": 6}},
    "output": {"snapshots": {"every": 0}, "checkpoint_every": 0},
    "device": "cpu",
}


def test_predicted_data_are_the_wave_runs_seismogram():
    r = strata.imaging.gradient(CFG)
    seis = strata.wave.run(CFG, on_warning=lambda w: None).seismogram
    assert r["predicted"].shape == seis.shape == (71, 7)
    assert np.array_equal(r["predicted"], seis)
    assert r["misfit"] == pytest.approx(0.5 * np.sum(seis ** 2))
    assert r["gradient"].shape == (24, 20, 26) and r["illumination"].shape == (24, 20, 26)
    assert r["checkpoints"] >= 1 and r["forward_steps"] >= 70


def test_the_wave_module_names_the_imaging_functions():
    # strata.wave.gradient / migrate / born: strata.imaging's own functions, the same results.
    for name in ("gradient", "migrate", "born"):
        assert getattr(strata.wave, name) is getattr(strata.imaging, name)
    assert np.array_equal(strata.wave.gradient(CFG)["gradient"], strata.imaging.gradient(CFG)["gradient"])
    with pytest.raises(AttributeError, match="no attribute 'gradiant'"):
        strata.wave.gradiant


def test_born_and_the_gradient_are_adjoint():
    rng = np.random.default_rng(5)
    shape = (24, 20, 26)
    dm = rng.standard_normal(shape) * 1e-8           # s^2/m^2, about 1/v^2 ~ 4e-7
    d = rng.standard_normal((71, 7))
    bdm = strata.imaging.born(CFG, dm)["predicted"]
    p = strata.imaging.gradient(CFG)["predicted"]
    btd = strata.imaging.gradient(CFG, observed=p - d)["gradient"]  # residual d: B^T d
    lhs, rhs = np.sum(bdm[1:] * d[1:]), np.sum(dm * btd)
    assert lhs != 0
    assert abs(lhs - rhs) / max(abs(lhs), abs(rhs)) < 1e-10


def test_the_gradient_predicts_the_misfits_change():
    v = np.empty((24, 20, 26))
    v[:12], v[12:] = 1500.0, 1900.0
    observed = strata.imaging.gradient(CFG, velocity=v * 1.02)["predicted"]
    r = strata.imaging.gradient(CFG, observed=observed, velocity=v)
    m = 1.0 / v ** 2
    dm = np.random.default_rng(7).standard_normal(m.shape) * 0.02 * m
    slope = np.sum(r["gradient"] * dm)
    for e in (1e-2, 5e-3):
        jp = strata.imaging.gradient(CFG, observed=observed, velocity=1 / np.sqrt(m + e * dm))["misfit"]
        jm = strata.imaging.gradient(CFG, observed=observed, velocity=1 / np.sqrt(m - e * dm))["misfit"]
        assert (jp - jm) / (2 * e) == pytest.approx(slope, rel=1e-3)


def test_migrate_and_checkpoints():
    reflections = np.random.default_rng(3).standard_normal((71, 7))
    a = strata.imaging.migrate(CFG, reflections)
    b = strata.imaging.migrate(CFG, reflections, checkpoints=3)
    assert a["image"].shape == (24, 20, 26) and np.isfinite(a["compensated"]).all()
    assert np.array_equal(a["image"], b["image"])  # recomputed states are the same states
    assert b["checkpoints"] == 3 and b["forward_steps"] > a["forward_steps"]
    # illumination=False: no illumination summed, no compensated image, the image the same bits
    # (one shot and over shots).
    c = strata.imaging.migrate(CFG, reflections, illumination=False)
    assert c["illumination"] is None and c["compensated"] is None
    assert np.array_equal(c["image"], a["image"])


def test_refusals_name_what_is_wrong():
    with pytest.raises(ValueError, match="receivers.every"):
        strata.imaging.gradient({**CFG, "receivers": {**CFG["receivers"], "every": 2}})
    with pytest.raises(ValueError, match="72 rows|71 rows"):
        strata.imaging.gradient(CFG, observed=np.zeros((70, 7)))
    with pytest.raises(TypeError, match="real"):  # not its real part alone
        strata.imaging.gradient(CFG, observed=np.zeros((71, 7), complex))
    with pytest.raises(ValueError, match="memory_budget"):
        strata.imaging.gradient(CFG, memory_budget=float("nan"))
    with pytest.raises(ValueError, match="whole number"):
        strata.imaging.gradient(CFG, checkpoints=1.5)
    for empty in (np.zeros((0, 7)), np.zeros((0, 0))):  # not the zeros None stands for
        with pytest.raises(ValueError, match="empty"):
            strata.imaging.gradient(CFG, observed=empty)
    with pytest.raises(ValueError, match="empty"):
        strata.imaging.gradient(CFG, velocity=np.zeros((0, 20, 26)))
    with pytest.raises(ValueError, match="velocity"):
        strata.imaging.gradient(CFG, velocity=np.ones((24, 20, 25)) * 1500)
    with pytest.raises(ValueError, match="finite and > 0"):
        strata.imaging.gradient(CFG, velocity=np.zeros((24, 20, 26)))
    with pytest.raises(ValueError, match="budget"):
        strata.imaging.gradient(CFG, memory_budget=100.0)
    with pytest.raises(ValueError, match="dm"):
        strata.imaging.born(CFG, np.zeros((3, 3, 3)))
    bad = np.zeros((71, 7))
    bad[12, 3] = np.nan
    with pytest.raises(ValueError, match="row 12, receiver 3"):
        strata.imaging.gradient(CFG, observed=bad)
    # Finite data whose misfit cannot be summed (1/2 |data|^2 beyond a double): refused for
    # the gradient and for migrate alike, naming the largest value; row 0 is not compared.
    huge = np.full((71, 7), 1e160)
    huge[40, 2] = 3e170
    for call in (lambda: strata.imaging.gradient(CFG, observed=huge), lambda: strata.imaging.migrate(CFG, huge)):
        with pytest.raises(ValueError, match=r"3e\+170 at row 40, receiver 2: 1/2 \|data\|\^2 overflows"):
            call()
    row0 = np.zeros((71, 7))
    row0[0] = 1e300
    assert np.isfinite(strata.imaging.gradient(CFG, observed=row0)["misfit"])
    dm = np.zeros((24, 20, 26))
    dm[5, 6, 7] = np.inf
    with pytest.raises(ValueError, match="finite"):
        strata.imaging.born(CFG, dm)
    # The shape, not only the count: a transposed record (as many values) is refused, saying so.
    with pytest.raises(ValueError, match=r"the data are \(7, 71\).*transposed"):
        strata.imaging.gradient(CFG, observed=np.zeros((7, 71)))
    with pytest.raises(ValueError, match=r"the data are \(497, 1\)"):
        strata.imaging.migrate(CFG, np.zeros((497, 1)))


def test_data_dt_is_checked_against_the_runs_dt():
    r = strata.imaging.gradient(CFG)
    dt = r["dt"]
    again = strata.imaging.gradient(CFG, r["predicted"], data_dt=dt)  # the same sampling: runs
    assert again["misfit"] == 0.0
    with pytest.raises(ValueError, match="sample interval"):
        strata.imaging.gradient(CFG, r["predicted"], data_dt=dt * 1.01)
    with pytest.raises(ValueError, match="sample interval"):
        strata.imaging.migrate(CFG, r["predicted"], data_dt=2 * dt)
    with pytest.raises(ValueError, match="data_dt"):
        strata.imaging.gradient(CFG, r["predicted"], data_dt=-1.0)


def test_the_run_says_where_its_time_went():
    r = strata.imaging.gradient(CFG, checkpoints=4)
    parts = (r["forward_seconds"] + r["adjoint_seconds"] + r["checkpoint_seconds"] + r["setup_seconds"]
             + r["finish_seconds"])
    assert r["forward_seconds"] > 0 and r["adjoint_seconds"] > 0 and r["checkpoint_seconds"] >= 0
    assert r["forward_timed_steps"] == r["forward_steps"]  # checkpointing: every step timed alone
    assert r["setup_seconds"] > 0 and r["finish_seconds"] > 0
    assert parts <= r["seconds"]  # disjoint parts of the run
    setup = r["setup_parts"]  # checkpointing: no ring, the kept states' memory
    assert list(setup) == ["forward_backend", "adjoint_backend", "kept_states"], setup
    assert all(v >= 0 for v in setup.values()) and sum(setup.values()) <= r["setup_seconds"]
    finish = r["finish_parts"]  # the sums brought back, the gradient formed
    assert list(finish) == ["correlation", "illumination", "gradient", "released"], finish
    assert all(v >= 0 for v in finish.values()) and sum(finish.values()) <= r["finish_seconds"]
    assert r["fused_imaging"] is False  # on the CPU the correlation is a pass of its own
    assert r["forward_steps"] > 70 and r["cost_in_forward_runs"] >= 1.0  # it recomputed


def test_boundary_saving_gives_the_interiors_gradient():
    exact = strata.imaging.gradient(CFG, checkpoints=5)
    b = strata.imaging.gradient(CFG, boundary_saving=True)
    assert b["boundary_saving"] and not exact["boundary_saving"]
    assert b["forward_steps"] == 2 * 70 and b["misfit"] == exact["misfit"]
    inner = (slice(None, 24 - 6 + 4), slice(6 - 4, 20 - 6 + 4), slice(6 - 4, 26 - 6 + 4))  # z, y, x
    g, e = b["gradient"][inner], exact["gradient"][inner]
    assert np.abs(g - e).max() < 1e-10 * np.abs(e).max()
    assert np.all(b["gradient"][:, :, :2] == 0.0)  # deeper in the x layer than the ring: zero
    with pytest.raises(ValueError, match="not both"):
        strata.imaging.gradient(CFG, boundary_saving=True, checkpoints=3)


def test_the_illumination_left_out_changes_nothing_else():
    lit = strata.imaging.gradient(CFG, checkpoints=5)
    dark = strata.imaging.gradient(CFG, checkpoints=5, illumination=False)
    assert lit["illumination"].shape == (24, 20, 26) and dark["illumination"] is None
    assert dark["misfit"] == lit["misfit"]
    assert np.array_equal(dark["gradient"], lit["gradient"])  # the same bits
    assert np.array_equal(dark["predicted"], lit["predicted"])


def test_dt_is_the_runs_and_follows_the_fastest_velocity():
    rng = np.random.default_rng(3)
    v = rng.uniform(1400.0, 2600.0, (24, 20, 26))  # odd sizes, random model
    dt = strata.imaging.dt(CFG, velocity=v)
    assert dt == strata.imaging.gradient(CFG, velocity=v, checkpoints=2)["dt"]
    faster = v.copy()
    faster[5, 7, 11] = 1.5 * v.max()
    assert strata.imaging.dt(CFG, velocity=faster) < dt  # the stable step shrinks with v max
    fixed = strata.imaging.dt(CFG, velocity=faster, overrides=[f"time.dt={dt / 2}"])
    assert fixed == pytest.approx(dt / 2, rel=1e-12)  # time.dt given: that one
    with pytest.raises(ValueError, match="velocity"):
        strata.imaging.dt(CFG, velocity=-v)


SHOTS = [{"name": "west", "position": [95.0, 95.0, 60.0]}, {"name": "east", "position": [165.0, 95.0, 60.0]}]


def _moved(position):
    return dict(CFG, sources=[dict(CFG["sources"][0], position=position)])


def test_shots_are_the_single_shots_summed_in_order(tmp_path):
    rng = np.random.default_rng(11)
    observed = [rng.standard_normal((71, 7)) * 1e-3 for _ in SHOTS]
    r = strata.imaging.gradient(CFG, observed=observed, shots=SHOTS)
    assert r["shots"] == ["west", "east"]
    grad, light, misfit = np.zeros((24, 20, 26)), np.zeros((24, 20, 26)), 0.0
    for shot, obs, pred, m in zip(SHOTS, observed, r["predicted"], r["shot_misfits"]):
        one = strata.imaging.gradient(_moved(shot["position"]), observed=obs)
        assert np.array_equal(pred, one["predicted"]) and m == one["misfit"]
        grad += one["gradient"]
        light += one["illumination"]
        misfit += one["misfit"]
    assert np.array_equal(r["gradient"], grad) and np.array_equal(r["illumination"], light)
    assert r["misfit"] == misfit
    # A shots file (comments allowed) gives the same bits.
    path = tmp_path / "shots.json"
    path.write_text("// two shots\n" + __import__("json").dumps(SHOTS))
    f = strata.imaging.gradient(CFG, observed=np.stack(observed), shots=path)
    assert np.array_equal(f["gradient"], r["gradient"]) and f["misfit"] == r["misfit"]
    # Migration over shots: the images summed, compensated the stack's.
    m = strata.imaging.migrate(CFG, observed, shots=SHOTS)
    image = sum(strata.imaging.migrate(_moved(s["position"]), d)["image"] for s, d in zip(SHOTS, observed))
    assert np.array_equal(m["image"], np.zeros_like(image) + image)
    assert np.array_equal(m["compensated"], m["image"] / (m["illumination"] + 1e-3 * m["illumination"].max()))
    dark = strata.imaging.migrate(CFG, observed, shots=SHOTS, illumination=False)
    assert dark["illumination"] is None and dark["compensated"] is None
    assert np.array_equal(dark["image"], m["image"])


def test_shots_refusals_name_what_is_wrong():
    with pytest.raises(ValueError, match="2 shots but 1 observed arrays"):
        strata.imaging.gradient(CFG, observed=[np.zeros((71, 7))], shots=SHOTS)
    with pytest.raises(Exception, match="unknown key '0.positon'"):
        strata.imaging.gradient(CFG, shots=[{"name": "a", "positon": [95.0, 95.0, 60.0]}])
    with pytest.raises(Exception, match="outside"):
        strata.imaging.gradient(CFG, shots=[{"position": [95.0, 95.0, 6000.0]}])
    with pytest.raises(TypeError, match="shots must be"):
        strata.imaging.gradient(CFG, shots=3)
    with pytest.raises(ValueError, match="transposed"):  # each shot's array, by its shape
        strata.imaging.gradient(CFG, observed=[np.zeros((71, 7)), np.zeros((7, 71))], shots=SHOTS)


def test_born_over_shots_is_each_shots_born():
    dm = np.random.default_rng(13).standard_normal((24, 20, 26)) * 1e-8
    r = strata.imaging.born(CFG, dm, shots=SHOTS)
    assert r["shots"] == ["west", "east"] and len(r["predicted"]) == 2
    for shot, pred in zip(SHOTS, r["predicted"]):
        assert np.array_equal(pred, strata.imaging.born(_moved(shot["position"]), dm)["predicted"])
