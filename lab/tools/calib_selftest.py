"""`python3 lab/tools/calibrate.py --self-test`: the statistics, the fit and the resume logic of
lab/tools/calibrate.py on synthetic games drawn with fixed seeds, without engines or python-chess.
Run by `cargo test --test tools`. Ends with the line 'N passed, N failed'."""

import contextlib
import io
import json
import math
import os
import re
import tempfile
import xml.etree.ElementTree as ET

import calib_fit as cfit
import calibrate as cal

TESTS = []


def test(f):
    TESTS.append(f)
    return f


def true_elo(level):
    """A curve like a weakening's: steep at the bottom, flatter in the middle, steep at the top."""
    return 1250 + 95 * level - 4.0 * level ** 2 + 0.18 * level ** 3


def games_of(by_point):
    return [(lv, opp, y) for lv, opp, pairs in by_point.values() for p in pairs for y in p]


@test
def pentanomial_counts_pairs():
    assert cfit.pentanomial([0, 0.5, 1, 1, 1.5, 2, 2]) == [1, 1, 2, 1, 2]
    try:
        cfit.pentanomial([0.25])
        raise AssertionError("0.25 is no pair score")
    except ValueError:
        pass
    score, elo, lo, hi = cfit.pentanomial_elo([3, 5, 10, 5, 3])
    assert abs(score - 0.5) < 1e-12 and abs(elo) < 1e-9 and abs(lo + hi) < 1e-9 and hi > 0
    # All wins: an infinite Elo; all but a draw: finite, with a finite lower end.
    assert cfit.pentanomial_elo([0, 0, 0, 0, 9])[1] == math.inf
    score, elo, lo, hi = cfit.pentanomial_elo([0, 0, 0, 1, 9])
    assert score == 0.975 and 600 < elo < 700 and math.isfinite(lo) and lo < elo
    assert cfit.pentanomial_elo([0] * 5) is None
    # A 76% score is +200 Elo.
    assert abs(cfit.elo_of_score(cfit.expected(200)) - 200) < 1e-9


@test
def pwl_fit_recovers_known_elo():
    levels = [0, 4, 8, 12, 16, 20]
    # Opponents near and away from each level's strength, two for level 12: one fit of all.
    points = [(0, 1350), (4, 1500), (8, 1750), (12, 1850), (12, 2050), (16, 2300), (20, 2850)]
    by_point = cfit.simulate(true_elo, points, pairs=200, seed=7)
    groups = cfit.groups_of(games_of(by_point))
    curve, theta, cov = cfit.fit_model("pwl", levels, groups)
    elos = curve.knot_values(theta)
    ci = cfit.bootstrap("pwl", levels, by_point, 200, seed=3)
    inside = 0
    for lv, e, (lo, hi) in zip(levels, elos, ci):
        assert abs(e - true_elo(lv)) < 45, (lv, e, true_elo(lv))
        assert lo < e < hi and 8 < (hi - lo) / 2 < 80, (lv, lo, hi)
        inside += lo <= true_elo(lv) <= hi
        # The observed-information interval ignores draws, so it is wider than the bootstrap's.
        assert 1.96 * cfit.fisher_se(curve, cov, lv) > 0.8 * (hi - lo) / 2
    assert inside >= 5, inside


@test
def polynomial_fit_recovers_a_cubic():
    levels = list(range(0, 21, 2))
    points = [(lv, min(max(round(true_elo(lv) / 50) * 50, 1350), 2850)) for lv in levels]
    by_point = cfit.simulate(true_elo, points, pairs=60, seed=11)
    curve, theta, _ = cfit.fit_model("poly3", levels, cfit.groups_of(games_of(by_point)))
    for lv in levels:
        assert abs(cfit.value(curve, theta, lv) - true_elo(lv)) < 45, lv


@test
def a_perfect_score_stays_finite():
    by_point = {"a": (0, 1350, [(0.0, 0.0)] * 10), "b": (10, 1800, [(0.5, 0.5)] * 10)}
    curve, theta, _ = cfit.fit_model("pwl", [0, 10], cfit.groups_of(games_of(by_point)))
    low, mid = curve.knot_values(theta)
    # 1 virtual draw in 21 games: score 1/42, about -650 Elo.
    assert -800 < low - 1350 < -500 and abs(mid - 1800) < 1e-6, (low, mid)


@test
def stockfish_steps_read_a_label_as_its_integer_level():
    # Stockfish 15.1 (search.cpp, Skill): level ((S - 1346.6) / 143.4)^(1 / 0.806), depth 1 + int.
    for level in range(1, 20):
        label = cfit.sf_label_of_level(level)
        assert abs(cfit.sf_level(label) - level) < 1e-9, (level, label)
    cases = {1350: 1346.6, 1489: 1346.6, 2050: 2034.8, 2100: 2034.8, 2112: 2034.8, 2114: 2113.0,
             2200: 2189.3, 2850: 2819.9}
    for label, plays in cases.items():
        assert abs(cfit.sf_elo(label, "steps") - plays) < 0.05, (label, cfit.sf_elo(label, "steps"))
        assert cfit.sf_elo(label, "label") == label
    # The whole levels' UCI_Elo: the first whole number at the level (1597 is level 1.997).
    assert [cfit.sf_whole_level_elo(k) for k in (0, 2, 6, 12)] == [1350, 1598, 1955, 2410]
    for k in range(1, 20):
        e = cfit.sf_whole_level_elo(k)
        assert int(cfit.sf_level(e)) == k and int(cfit.sf_level(e - 1)) == k - 1, (k, e)
    # The full run's opponents all stand at whole levels, where both readings agree.
    for _, sf in cal.parse_points(cal.FULL_POINTS, "skill"):
        assert abs(cfit.sf_elo(sf, "steps") - sf) < 3.5, sf
    # Within a step the reading never rises above the label, and never by a whole step.
    for label in range(1350, 2851):
        gap = label - cfit.sf_elo(label, "steps")
        assert 0 <= gap < 150, (label, gap)
    try:
        cfit.sf_elo(2000, "midpoint")
        raise AssertionError("an unknown scale is refused")
    except ValueError:
        pass


@test
def a_check_folds_in_at_the_strength_its_label_meant():
    import calib_fold
    anchors = [(1400, 0.0), (1600, 2.0), (2000, 10.0), (2400, 20.0)]
    # src/search/skill.rs's strength_for_elo: clamped at the ends, linear between anchors.
    cases = {1320: 0.0, 1400: 0.0, 1500: 1.0, 1800: 6.0, 2000: 10.0, 2200: 15.0, 2500: 20.0}
    for elo, level in cases.items():
        assert abs(calib_fold.strength_for_elo(anchors, elo) - level) < 1e-12, (elo, level)
    recs = [record("elo=1800:sf=1800", 1800, 1800, 0, True, 1.0),
            record("elo=1800:sf=1800", 1800, 1800, 0, False, 0.5)]
    recs = [dict(r, mode="elo") for r in recs]
    folded = list(calib_fold.fold(anchors, recs + [dict(recs[0], mode="skill")]))
    assert [r["level"] for r in folded] == [6.0, 6.0], "skill games are not folded twice"
    assert {r["point"] for r in folded} == {"skill=6.0:sf=1800"} and folded[0]["mode"] == "skill"
    assert len({r["id"] for r in folded}) == 2 and [r["score"] for r in folded] == [1.0, 0.5]


@test
def the_curve_never_falls():
    dip = {0: 1400, 5: 1800, 10: 1700, 15: 2100}
    by_point = cfit.simulate(lambda lv: dip[lv], [(lv, e) for lv, e in dip.items()], pairs=150, seed=5)
    curve, theta, _ = cfit.fit_model("pwl", list(dip), cfit.groups_of(games_of(by_point)))
    elos = curve.knot_values(theta)
    assert all(b >= a for a, b in zip(elos, elos[1:])), elos
    assert abs(elos[1] - elos[2]) < 1e-6 and 1650 < elos[1] < 1850, elos  # 5 and 10 pooled
    anchors = cfit.anchors(list(dip), elos)
    assert all(b[0] > a[0] for a, b in zip(anchors, anchors[1:])), anchors


@test
def anchors_go_into_params_rs():
    text = open(os.path.join(cal.ROOT, "src", "params.rs")).read()
    anchors = [(1330, 0.0), (1700, 8.0), (2950, 20.0)]
    new = cfit.replace_anchors(text, anchors)
    assert "[(i64, f64); 3] = [\n    (1330, 0.0),\n    (1700, 8.0),\n    (2950, SKILL_MAX_LEVEL as f64),\n];" in new
    # Only the constant changed.
    assert cfit.ANCHORS_RE.sub("", new) == cfit.ANCHORS_RE.sub("", text)
    # Read back: what was written, and what calib_fold --params reads from a build's params.rs.
    assert cfit.parse_anchors(new) == anchors
    try:
        cfit.replace_anchors("nothing here", anchors)
        raise AssertionError("no constant to replace")
    except ValueError:
        pass


@test
def openings_are_fixed_by_the_seed_and_extend():
    a, b = cal.opening_order(1000, 1), cal.opening_order(1000, 1)
    assert a == b and a != cal.opening_order(1000, 2) and sorted(a) == list(range(1000))
    points = [(0, 1350), (10, 1800)]
    short, long = cal.jobs("skill", points, 3, a), cal.jobs("skill", points, 5, a)
    assert long[:len(short)] == short and len(long) == 5 * 2 * 2
    # Both colours of a pair play the same opening; every point plays the same openings.
    for pair in range(5):
        openings = {j[4] for j in long if j[3] == pair}
        assert openings == {a[pair]}, openings
    assert cal.parse_points("0:1350, 20:2850", "skill") == [(0, 1350), (20, 2850)]
    for bad in ("0:1300", "21:2000", "5", "0:1350,0:1350"):
        try:
            cal.parse_points(bad, "skill")
            raise AssertionError(bad)
        except ValueError:
            pass


@test
def points_beyond_the_engines_ranges_are_refused_before_the_games():
    # lazuli's UCI_Elo tops out at its calibration's last anchor (2323 in issue 36's fit).
    points = [(1650, 1650), (2350, 2350), (2000, 1320)]
    bad = cal.points_out_of_range(points, "elo", (1320, 2323), (1320, 3190))
    assert bad == ["point 2350:2350: lazuli's UCI_Elo is 1320..2323"], bad
    assert cal.points_out_of_range(points[:1], "elo", (1320, 2323), (1320, 3190)) == []
    bad = cal.points_out_of_range([(21, 1350)], "skill", (0, 20), (1400, 3190))
    assert len(bad) == 2 and "Skill Level is 0..20" in bad[0] and "Stockfish" in bad[1], bad


@test
def book_lines_become_fens():
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "b.epd")
        with open(path, "w") as f:
            f.write("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1\n\n"
                    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - id \"x\";\n")
        assert cal.load_book(path) == [
            "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1",
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"]
    assert len(cal.load_book(cal.BOOK)) == 10063


def record(key, level, sf, pair, white, score):
    return dict(id=cal.game_id(key, pair, white), point=key, mode="skill", level=level, sf=sf, pair=pair,
                opening=pair, lazuli_white=white, score=score, result="?", reason="checkmate",
                plies=80, seconds=1.0)


@test
def a_cut_off_run_resumes_where_it_stopped():
    points = [(0, 1350), (10, 1800)]
    order = cal.opening_order(50, 4)
    all_jobs = cal.jobs("skill", points, 4, order)
    header = dict(tc="10+0.1", book="noob_3moves_every15.epd", seed=4, maxplies=600)
    finished = [record(j[0], j[1], j[2], j[3], j[5], 1.0) for j in all_jobs[:5]]
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "r.jsonl")
        with open(path, "w") as f:
            f.write(json.dumps({"header": header}) + "\n")
            for r in finished:
                f.write(json.dumps(r) + "\n")
            f.write(json.dumps(record("x", 0, 1350, 9, True, 1.0))[:40])  # killed mid-line
        got_header, done = cal.read_results(path)
    assert got_header == header and set(done) == {r["id"] for r in finished}
    todo = cal.missing(all_jobs, done)
    assert todo == all_jobs[5:], "exactly the unplayed games, in order"
    assert cal.check_header(header, dict(header)) is None
    assert "tc" in cal.check_header(header, dict(header, tc="60+0.6"))
    assert "seed" in cal.check_header(header, dict(header, seed=5))


@test
def points_are_summed_pair_by_pair():
    key = cal.point_key("skill", 3, 1500)
    scores = [(1.0, 1.0), (1.0, 0.0), (0.5, 0.5), (0.5, 0.0), (0.0, 0.0), (1.0, 0.5)]
    recs = [record(key, 3, 1500, i, w, s) for i, pair in enumerate(scores) for w, s in zip((True, False), pair)]
    recs.append(record(key, 3, 1500, 6, True, 1.0))  # an unfinished pair: a game, not a pair
    (row,) = cal.summary_rows(recs)
    _, level, sf, n, w, d, l, penta, (score, *_rest) = row
    assert (level, sf, n, w, d, l) == (3, 1500, 13, 5, 4, 4)
    assert penta == [1, 1, 2, 1, 1], penta  # LL, LD, DD/WL (two), WD, WW
    assert abs(score - 6 / 12) < 1e-12


def write_results(path, by_point, labels):
    """A results file of simulated games; `labels` maps each simulated opponent to its label."""
    with open(path, "w") as f:
        f.write(json.dumps({"header": dict(tc="10+0.1", book="b", seed=1, maxplies=600)}) + "\n")
        for lv, opp, pairs in by_point.values():
            key = cal.point_key("skill", lv, labels[opp])
            for i, pair in enumerate(pairs):
                for white, y in zip((True, False), pair):
                    f.write(json.dumps(record(key, lv, labels[opp], i, white, y)) + "\n")


def fit_only(results, *extra):
    """The anchors that `calibrate.py --fit-only --write-params` writes, and its report."""
    with tempfile.TemporaryDirectory() as d:
        svg, params = os.path.join(d, "c.svg"), os.path.join(d, "params.rs")
        with open(os.path.join(cal.ROOT, "src", "params.rs")) as f, open(params, "w") as g:
            g.write(f.read())
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            cal.main(["--fit-only", "--results", results, "--svg", svg, "--write-params", "--params",
                      params, "--bootstrap", "30", "--tc", "10+0.1", *extra])
        root = ET.parse(svg).getroot()
        assert root.tag.endswith("svg") and len(list(root)) > 20
        written = open(params).read()
    m = re.search(r"SKILL_ELO_ANCHORS: \[\(i64, f64\); 3\] = \[\n    \((\d+), 0\.0\),\n    \((\d+), 10\.0\),"
                  r"\n    \((\d+), SKILL_MAX_LEVEL as f64\),", written)
    assert m, written[:200]
    return [int(e) for e in m.groups()], out.getvalue()


@test
def fit_only_reports_writes_anchors_and_a_chart():
    # Stockfish at 2100 plays like its level 7's 2034.8 (the steps reading, the default): the
    # games are drawn against that, and the default fit recovers the true curve, where reading
    # the label as the truth places level 10 about 65 Elo too high.
    labels = {cfit.sf_elo(s, "steps"): s for s in (1350, 2100, 2850)}
    by_point = cfit.simulate(true_elo, [(lv, o) for lv, o in zip((0, 10, 20), sorted(labels))],
                             pairs=40, seed=9)
    with tempfile.TemporaryDirectory() as d:
        results = os.path.join(d, "r.jsonl")
        write_results(results, by_point, labels)
        steps, text = fit_only(results)
        label, _ = fit_only(results, "--sf-scale", "label")
    assert "skill=10:sf=2100" in text and "SKILL_ELO_ANCHORS" in text and "2100 plays 2035" in text, text
    for lv, e in zip((0, 10, 20), steps):
        assert abs(e - true_elo(lv)) < 90, (lv, e)
    assert 55 < label[1] - steps[1] < 75, (label, steps)



# Stockfish's ladder: true places with uneven steps, as Stockfish's own games measured them.
LADDER_DEV = [0, 0, -30, -20, 80, 120, 180]  # m_k - L_k for levels 0..6


def ladder_truth():
    return [cfit.sf_label_of_level(k) + d for k, d in enumerate(LADDER_DEV)]


def ladder_games(seed, lz_pairs=200, sf_pairs=150):
    """lazuli's games ({(x, k): [n, pts]}, and by point for the bootstrap) against the true
    ladder, and Stockfish's games between consecutive levels."""
    m = ladder_truth()
    points = [(0, 0), (2, 1), (2, 2), (4, 2), (4, 3), (6, 3), (6, 4), (8, 4), (8, 5), (10, 5), (10, 6)]
    lz = {}
    for i, (x, k) in enumerate(points):
        _, _, pairs = cfit.simulate(true_elo, [(x, m[k])], lz_pairs, seed + i)[(x, m[k])]
        lz[f"{x}:{k}"] = (x, k, pairs)
    sf = {}
    for k in range(1, len(m)):
        _, _, pairs = cfit.simulate(lambda lv: m[lv], [(k, m[k - 1])], sf_pairs, seed + 100 + k)[(k, m[k - 1])]
        sf[f"{k}:{k - 1}"] = (k, k - 1, pairs)
    return lz, sf


@test
def the_ladder_reads_places_back_as_labels():
    m = ladder_truth()
    for k, place in enumerate(m):
        assert abs(cfit.ladder_to_label(place, m) - cfit.sf_label_of_level(k)) < 1e-9, k
    half = cfit.ladder_to_label((m[3] + m[4]) / 2, m)
    assert abs(half - (cfit.sf_label_of_level(3) + cfit.sf_label_of_level(4)) / 2) < 1e-9
    # Beyond the ends along the end segments; and the labels' own ladder is the identity.
    below = cfit.ladder_to_label(m[0] - 50, m)
    assert abs(below - (m[0] - 50 * (cfit.sf_label_of_level(1) - m[0]) / (m[1] - m[0]))) < 1e-9
    labels = [cfit.sf_label_of_level(k) for k in range(7)]
    for e in (1300.0, 1700.0, 2000.0, 2300.0):
        assert abs(cfit.ladder_to_label(e, labels) - e) < 1e-9, e


@test
def the_ladder_fit_recovers_uneven_steps():
    lz, sf = ladder_games(seed=21)
    knots = [0, 2, 4, 6, 8, 10]
    curve, theta, places = cfit.ladder_fit(knots, cfit.ladder_groups(lz), cfit.ladder_groups(sf), 6)
    m = ladder_truth()
    assert places[0] == m[0]
    for k in range(1, 7):  # every step measured by 300 games and lazuli's: near the truth
        assert abs((places[k] - places[k - 1]) - (m[k] - m[k - 1])) < 45, (k, places, m)
    fitted = [cfit.ladder_to_label(e, places) for e in curve.knot_values(theta)]
    truth = [cfit.ladder_to_label(true_elo(x), m) for x in knots]
    for x, f, t in zip(knots, fitted, truth):
        assert abs(f - t) < 40, (x, f, t)
    # The steps reading of the same lazuli games serves the uneven ladder worse: a point that
    # meets two levels hears two stories (the labels' step is not the ladder's), and its knots
    # land further from where level k's label means "plays as level k" (here 30 against 10).
    steps_games = [(x, cfit.sf_label_of_level(k), y) for x, k, pairs in lz.values() for p in pairs for y in p]
    c2, t2, _ = cfit.fit_model("pwl", knots, cfit.groups_of(steps_games))
    steps_err = max(abs(a - b) for a, b in zip(c2.knot_values(t2), truth))
    ladder_err = max(abs(f - t) for f, t in zip(fitted, truth))
    assert steps_err > ladder_err + 15, (steps_err, ladder_err)
    # Without Stockfish's games the prior holds each step near its label, and the fit tells
    # the two readings apart less well than with them.
    c3, t3, p3 = cfit.ladder_fit(knots, cfit.ladder_groups(lz), {}, 6, sigma=20.0)
    assert all(abs(p3[k] - p3[k - 1] - (cfit.sf_label_of_level(k) - cfit.sf_label_of_level(k - 1))) < 60
               for k in range(1, 7)), p3
    # The bootstrap's intervals hold the fit and, nearly always, the truth.
    ci, place_ci = cfit.ladder_bootstrap(knots, lz, sf, 6, 40, seed=4)
    assert sum(lo <= t <= hi for t, (lo, hi) in zip(truth, ci)) >= 5, (ci, truth)
    assert all(lo <= f <= hi for f, (lo, hi) in zip(fitted, ci))
    assert place_ci[0] == (0.0, 0.0) and all(hi - lo > 5 for lo, hi in place_ci[1:])


@test
def stockfish_games_come_from_match_py_pgns():
    import calib_ladder
    pgn = """[Event "match.py"]
[Round "1"]
[White "Stockfish 15.1"]
[Black "Stockfish 15.1 (2)"]
[Result "1-0"]

1. e4 e5 1-0

[Event "match.py"]
[Round "2"]
[White "Stockfish 15.1 (2)"]
[Black "Stockfish 15.1"]
[Result "1-0"]

1. d4 d5 1-0

[Event "match.py"]
[Round "3"]
[White "Stockfish 15.1 (2)"]
[Black "Stockfish 15.1"]
[Result "1/2-1/2"]

1. c4 1/2-1/2

[Event "match.py"]
[Round "4"]
[White "Stockfish 15.1"]
[Black "Stockfish 15.1 (2)"]
[Result "*"]

1. Nf3 *
"""
    recs = list(calib_ladder.records(calib_ladder.games_of_pgn(pgn), 1872, 1785, "Stockfish 15.1"))
    assert [(r["pair"], r["score"]) for r in recs] == [(0, 1.0), (0, 0.0), (1, 0.5)], recs
    assert {r["probe"] for r in recs} == {"sf=1872:sf=1785"}
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "sf.jsonl")
        with open(path, "w") as f:
            f.writelines(json.dumps(r) + "\n" for r in recs)
        assert cal.read_sf_games([path]) == {"sf=1872:sf=1785": (1872, 1785, [(1.0, 0.0), (0.5,)])}


@test
def fit_only_reads_stockfish_on_its_fitted_ladder():
    # Stockfish's step from level 7 to 8 is twice its labels' (its own games say so), and
    # lazuli's level 10 scores 120 Elo above level 7: the ladder reading puts it half a step
    # above level 7's label (L7 + 120 x 78 / 157, about L7 + 60), the steps reading at L7 + 120.
    lab = cfit.sf_label_of_level
    step78 = 2 * (lab(8) - lab(7))
    truth = {0: lab(0), 10: lab(7) + 120, 20: lab(12)}
    opp = {0: lab(0), 10: lab(7), 20: lab(12)}
    by_point = cfit.simulate(lambda lv: truth[lv], [(lv, opp[lv]) for lv in (0, 10, 20)], pairs=100, seed=9)
    labels = {lab(0): 1350, lab(7): cfit.sf_whole_level_elo(7), lab(12): cfit.sf_whole_level_elo(12)}
    _, _, pairs = cfit.simulate(lambda lv: step78, [(0, 0.0)], 150, seed=31)[(0, 0.0)]
    hi, lo = cfit.sf_whole_level_elo(8), cfit.sf_whole_level_elo(7)
    sf_recs = [{"probe": f"sf={hi}:sf={lo}", "sf1": hi, "sf2": lo, "pair": i, "score": y}
               for i, pair in enumerate(pairs) for y in pair]
    with tempfile.TemporaryDirectory() as d:
        results, sfg = os.path.join(d, "r.jsonl"), os.path.join(d, "sf.jsonl")
        write_results(results, by_point, labels)
        with open(sfg, "w") as f:
            f.writelines(json.dumps(r) + "\n" for r in sf_recs)
        ladder, text = fit_only(results, "--sf-scale", "ladder", "--sf-games", sfg)
        steps, _ = fit_only(results)
    assert "Stockfish's ladder" in text and "300 games of Stockfish against itself" in text, text
    assert "300 games against level 7" in text and "the prior alone" in text, text
    want = lab(7) + 120 * (lab(8) - lab(7)) / step78
    assert abs(ladder[1] - want) < 35, (ladder, want)
    assert steps[1] - ladder[1] > 30, (steps, ladder)
    for a, b in ((ladder[0], lab(0)), (ladder[2], lab(12)), (steps[0], lab(0)), (steps[2], lab(12))):
        assert abs(a - b) < 60, (ladder, steps)

def main():
    passed = failed = 0
    for t in TESTS:
        try:
            t()
            passed += 1
            print(f"ok     {t.__name__}")
        except Exception as e:  # noqa: BLE001 - every failure is reported, then counted
            failed += 1
            print(f"FAILED {t.__name__}: {type(e).__name__}: {e}")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0
