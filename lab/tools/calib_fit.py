"""The statistics of lab/tools/calibrate.py, without engines: pentanomial counts, a level -> Elo
curve fitted by maximum likelihood to all games at once, a bootstrap over game pairs, the
anchors in src/params.rs's form and an SVG chart. Standard library only, so that
`python3 lab/tools/calibrate.py --self-test` (run by `cargo test --test tools`) needs nothing else.

The model: lazuli at level x (a `Skill Level`, or a `UCI_Elo` label) has the Elo R(x) on
Stockfish 15.1's scale; against Stockfish at `UCI_Elo` S its expected score is the logistic
E = 1 / (1 + 10^((S' - R(x)) / 400)), where S' is the Elo that Stockfish at S is taken to play
(`sf_elo`: its integer level's label by default, or S itself). R(x) is linear in
its parameters theta: R(x) = sum_j theta_j b_j(x), with b_j either the hat functions of a
piecewise-linear curve through knots (theta_j is then the Elo at knot j) or the powers of a
polynomial in x / 20. The log-likelihood sum over games of y log E + (1 - y) log(1 - E), a
draw counting as half a win and half a loss (the quasi-likelihood of Ordo and of
Stockfish's own fit), is concave in theta, so Newton's method finds its maximum. A level that
won or lost every game has no finite maximum: `prior_draws` virtual draws against each
opponent (BayesElo's prior) keep it finite; they move a 50%-point not at all and a 100-game
point by a few Elo.

Intervals come from a bootstrap over game pairs: each point's pairs are drawn again with
replacement (a pair keeps its two games together, so the correlation within a pair and the
draws are accounted for as the pentanomial model does) and the curve refitted; the 2.5% and
97.5% quantiles of each knot's Elo are its 95% interval.
"""

import math
import random
import re

LOG10 = math.log(10.0)


def expected(diff):
    """Expected score of a player `diff` Elo above its opponent."""
    x = -diff * LOG10 / 400.0
    if x > 700.0:
        return 0.0
    return 1.0 / (1.0 + math.exp(x))


def elo_of_score(score):
    """The Elo difference of an expected score; +-inf at 1 and 0."""
    if score <= 0.0:
        return -math.inf
    if score >= 1.0:
        return math.inf
    return -400.0 * math.log10(1.0 / score - 1.0)


# ---------------------------------------------------------------------------------------------
# Stockfish 15.1's scale: what an opponent at UCI_Elo S is taken to play.
# ---------------------------------------------------------------------------------------------

SF_SCALES = ("label", "steps", "ladder")


def sf_level(elo):
    """Stockfish 15.1's skill level at `UCI_Elo` elo (search.cpp, `Skill`): a real number in
    0..20, ((elo - 1346.6) / 143.4)^(1 / 0.806)."""
    if elo <= 1346.6:
        return 0.0
    return min(((elo - 1346.6) / 143.4) ** (1 / 0.806), 20.0)


def sf_label_of_level(level):
    """The `UCI_Elo` label of Stockfish's level (the inverse of sf_level)."""
    return 1346.6 + 143.4 * level ** 0.806


def sf_whole_level_elo(level, lowest=1350):
    """The lowest `UCI_Elo` (a whole number, at least Stockfish's `lowest`) at which Stockfish
    15.1 plays whole level `level`: the label rounded up, where both readings of sf_elo agree."""
    elo = max(math.ceil(sf_label_of_level(level)), lowest)
    while int(sf_level(elo)) < level:
        elo += 1
    return elo


def sf_elo(elo, scale):
    """The Elo that Stockfish 15.1 at `UCI_Elo` elo is taken to play. "label": the label itself.
    "steps": the label of its integer level, floor(sf_level): Stockfish picks its move at depth
    1 + int(level), so between two integer levels only the pick's weakness (120 - 2 level)
    moves; its scale was fitted to games at integer levels, where both readings agree
    (docs/limited-strength.md, "Stockfish's staircase and its measured ladder")."""
    if scale == "label":
        return float(elo)
    if scale in ("steps", "ladder"):  # the ladder's places are fitted: ladder_fit
        return sf_label_of_level(sf_whole_level(elo))  # int(level), as Stockfish
    raise ValueError(f"scale {scale!r}: one of {SF_SCALES}")


# ---------------------------------------------------------------------------------------------
# Per point: pentanomial counts and the Elo difference with its interval.
# ---------------------------------------------------------------------------------------------

PENTA_NAMES = ("LL", "LD", "DD/WL", "WD", "WW")


def pentanomial(pair_scores):
    """Counts of pair scores 0, 0.5, 1, 1.5, 2 (lazuli's points in the two games of a pair):
    [LL, LD, DD or WL, WD, WW]."""
    counts = [0] * 5
    for s in pair_scores:
        i = round(2 * s)
        if not 0 <= i <= 4 or abs(2 * s - i) > 1e-9:
            raise ValueError(f"not a pair score: {s}")
        counts[i] += 1
    return counts


def pentanomial_elo(counts, z=1.96):
    """(score, elo, low, high) of pentanomial counts: the mean score per game and its Elo
    difference, with the interval of mean +- z standard errors of the pair scores mapped to
    Elo (None where there are no pairs; an infinite end where the score is 0 or 1)."""
    n = sum(counts)
    if n == 0:
        return None
    values = [i / 4 for i in range(5)]  # a pair's score per game
    mean = sum(c * v for c, v in zip(counts, values)) / n
    var = sum(c * (v - mean) ** 2 for c, v in zip(counts, values)) / n
    se = math.sqrt(var / n) if n > 1 else math.inf  # one pair has no spread to measure
    lo, hi = mean - z * se, mean + z * se
    return mean, elo_of_score(mean), elo_of_score(lo), elo_of_score(hi)


# ---------------------------------------------------------------------------------------------
# Linear algebra for small matrices (lists of lists).
# ---------------------------------------------------------------------------------------------

def solve(a, b):
    """x with a x = b (Gaussian elimination with partial pivoting); a is square."""
    n = len(b)
    m = [list(row) + [bi] for row, bi in zip(a, b)]
    for col in range(n):
        piv = max(range(col, n), key=lambda r: abs(m[r][col]))
        if abs(m[piv][col]) < 1e-300:
            raise ZeroDivisionError("singular matrix")
        m[col], m[piv] = m[piv], m[col]
        for r in range(n):
            if r != col and m[r][col] != 0.0:
                f = m[r][col] / m[col][col]
                for c in range(col, n + 1):
                    m[r][c] -= f * m[col][c]
    return [m[i][n] / m[i][i] for i in range(n)]


def inverse(a):
    n = len(a)
    cols = [solve(a, [1.0 if i == j else 0.0 for i in range(n)]) for j in range(n)]
    return [[cols[j][i] for j in range(n)] for i in range(n)]


# ---------------------------------------------------------------------------------------------
# Curves: bases in the level.
# ---------------------------------------------------------------------------------------------

class PiecewiseLinear:
    """R(x) through (knot, theta) pairs, linear between them and beyond the ends along the end
    segments. `blocks` ties knots together (one parameter for a run of knots: the pooling of
    adjacent violators that keeps the curve monotone)."""

    def __init__(self, knots, blocks=None):
        self.knots = sorted(set(float(k) for k in knots))
        self.blocks = blocks or [[i] for i in range(len(self.knots))]

    def hats(self, x):
        k = self.knots
        h = [0.0] * len(k)
        if len(k) == 1:
            h[0] = 1.0
            return h
        i = 0
        while i < len(k) - 2 and x > k[i + 1]:
            i += 1
        t = (x - k[i]) / (k[i + 1] - k[i])
        h[i], h[i + 1] = 1.0 - t, t
        return h

    def basis(self, x):
        h = self.hats(x)
        return [sum(h[i] for i in block) for block in self.blocks]

    def knot_values(self, theta):
        """The Elo at each knot."""
        out = [0.0] * len(self.knots)
        for value, block in zip(theta, self.blocks):
            for i in block:
                out[i] = value
        return out


class Polynomial:
    """R(x) = sum_k theta_k (x / 20)^k, k = 0..degree."""

    def __init__(self, degree, knots):
        self.degree = degree
        self.knots = sorted(set(float(k) for k in knots))

    def basis(self, x):
        t = x / 20.0
        return [t ** k for k in range(self.degree + 1)]

    def knot_values(self, theta):
        return [sum(c * b for c, b in zip(theta, self.basis(x))) for x in self.knots]


def value(curve, theta, x):
    return sum(c * b for c, b in zip(theta, curve.basis(x)))


# ---------------------------------------------------------------------------------------------
# Maximum likelihood.
# ---------------------------------------------------------------------------------------------

def tally(games):
    """Games (a, b, a's score) -> {(a, b): [games, points]}."""
    out = {}
    for a, b, y in games:
        g = out.setdefault((a, b), [0, 0.0])
        g[0] += 1
        g[1] += y
    return out


def groups_of(games):
    """Games (level, opponent Elo, lazuli's score) -> {(level, opponent): [games, points]}."""
    return tally((float(x), float(opp), y) for x, opp, y in games)


def maximise(start, rows, prior=(), prior_draws=1.0, ridge=1e-9):
    """Newton's method for the maximum of a logistic log-likelihood plus a quadratic prior, each
    step halved until the objective does not fall. A row is (coef {index: value}, constant,
    games, points): its expected score is E(constant + coef . phi), with `prior_draws` virtual
    draws added. `prior`: [(coef, target, sigma)], each adding -(coef . phi - target)^2 /
    (2 sigma^2). Returns (phi, covariance from the observed information)."""
    c = LOG10 / 400.0
    dim = len(start)

    def lin(coef, phi):
        return sum(v * phi[i] for i, v in coef.items())

    def objective(phi):
        total = 0.0
        for coef, const, n, pts in rows:
            n, pts = n + prior_draws, pts + prior_draws / 2
            e = min(max(expected(const + lin(coef, phi)), 1e-300), 1 - 1e-16)
            total += pts * math.log(e) + (n - pts) * math.log(1.0 - e)
        for coef, target, sigma in prior:
            total -= (lin(coef, phi) - target) ** 2 / (2 * sigma * sigma)
        return total

    phi = list(start)
    current = objective(phi)
    hess = None
    for _ in range(100):
        grad = [0.0] * dim
        hess = [[-ridge if i == j else 0.0 for j in range(dim)] for i in range(dim)]
        for coef, const, n, pts in rows:
            n, pts = n + prior_draws, pts + prior_draws / 2
            e = expected(const + lin(coef, phi))
            g, w = c * (pts - n * e), c * c * n * e * (1.0 - e)
            for i, vi in coef.items():
                grad[i] += g * vi
                for j, vj in coef.items():
                    hess[i][j] -= w * vi * vj
        for coef, target, sigma in prior:
            d = (lin(coef, phi) - target) / (sigma * sigma)
            for i, vi in coef.items():
                grad[i] -= d * vi
                for j, vj in coef.items():
                    hess[i][j] -= vi * vj / (sigma * sigma)
        step = solve([[-v for v in row] for row in hess], grad)
        scale = 1.0
        while True:
            trial = [a + scale * d for a, d in zip(phi, step)]
            new = objective(trial)
            if new >= current - 1e-12 or scale < 1e-6:
                break
            scale /= 2
        phi, current = trial, new
        if max(abs(d) * scale for d in step) < 1e-7:
            break
    return phi, inverse([[-v for v in row] for row in hess])


def curve_rows(curve, groups):
    """maximise's rows of lazuli's games: {(level, opponent Elo): [games, points]} on `curve`."""
    return [({i: b for i, b in enumerate(curve.basis(x)) if b != 0.0}, -opp, n, pts)
            for (x, opp), (n, pts) in groups.items()]


def fit(curve, groups, prior_draws=1.0, ridge=1e-9):
    """theta maximising the likelihood of `groups`, and the covariance of theta from the
    observed information (the inverse of minus the Hessian)."""
    dim = len(curve.basis(0.0))
    mean_opp = sum(opp * n for (_, opp), (n, _) in groups.items()) / sum(n for n, _ in groups.values())
    # Start from the flat curve at the opponents' mean Elo.
    theta = [0.0] * dim
    if isinstance(curve, PiecewiseLinear):
        theta = [mean_opp] * dim
    else:
        theta[0] = mean_opp
    return maximise(theta, curve_rows(curve, groups), (), prior_draws, ridge)


def fit_monotone(knots, groups, prior_draws=1.0):
    """A piecewise-linear fit through `knots` whose Elo never falls as the level rises: adjacent
    knots that violate it are pooled (one parameter) and the whole curve refitted, until none
    does. With a knot at each level played (the default) the likelihood is a sum over knots and
    this pooling of adjacent violators gives the exact constrained maximum."""
    curve = PiecewiseLinear(knots)
    while True:
        theta, cov = fit(curve, groups, prior_draws)
        pooled = pool_first_violator(curve, theta)
        if pooled is None:
            return curve, theta, cov
        curve = pooled


def pool_first_violator(curve, theta):
    """The piecewise-linear `curve` with its first pair of adjacent blocks whose Elo falls
    pooled into one, or None when theta never falls."""
    bad = next((i for i in range(len(theta) - 1) if theta[i + 1] < theta[i] - 1e-6), None)
    if bad is None:
        return None
    blocks = curve.blocks[:bad] + [curve.blocks[bad] + curve.blocks[bad + 1]] + curve.blocks[bad + 2:]
    return PiecewiseLinear(curve.knots, blocks)


def fit_model(model, knots, groups, prior_draws=1.0):
    """`model` 'pwl' (monotone piecewise linear through the knots) or 'polyN' (degree N):
    (curve, theta, cov)."""
    if model == "pwl":
        return fit_monotone(knots, groups, prior_draws)
    m = re.fullmatch(r"poly(\d)", model)
    if not m:
        raise ValueError(f"unknown model {model!r}: pwl or poly1..poly9")
    curve = Polynomial(int(m.group(1)), knots)
    theta, cov = fit(curve, groups, prior_draws)
    return curve, theta, cov


def fisher_se(curve, cov, x):
    b = curve.basis(x)
    var = sum(b[i] * cov[i][j] * b[j] for i in range(len(b)) for j in range(len(b)))
    return math.sqrt(max(var, 0.0))


def bootstrap(model, knots, pairs_by_point, resamples, seed, prior_draws=1.0):
    """95% intervals of the Elo at each knot: `resamples` refits on pairs drawn again with
    replacement within each point. `pairs_by_point`: {point: (level, opponent, [(y1, y2), ...])}
    (a lone game of an unfinished pair is a pair of one game). Returns [(low, high)] per knot."""
    rng = random.Random(seed)
    samples = []
    for _ in range(resamples):
        curve, theta, _ = fit_model(model, knots, groups_of(resampled(rng, pairs_by_point)), prior_draws)
        samples.append(curve.knot_values(theta))
    return bands(samples)


def resampled(rng, by):
    """Games (a, b, y) of {name: (a, b, [(y1, y2), ...])} with each name's pairs drawn again
    with replacement, as many as it has."""
    return [(a, b, y) for a, b, pairs in by.values()
            for _ in range(len(pairs)) for y in pairs[rng.randrange(len(pairs))]]


def bands(samples):
    """The 2.5% and 97.5% quantiles of each coordinate of `samples` (lists of equal length)."""
    return [(quantile(v, 0.025), quantile(v, 0.975)) for v in (sorted(c) for c in zip(*samples))]


def quantile(sorted_vals, q):
    if not sorted_vals:
        return math.nan
    pos = q * (len(sorted_vals) - 1)
    lo = math.floor(pos)
    hi = min(lo + 1, len(sorted_vals) - 1)
    return sorted_vals[lo] + (sorted_vals[hi] - sorted_vals[lo]) * (pos - lo)


# ---------------------------------------------------------------------------------------------
# Stockfish's ladder: its whole levels as players of their own.
# ---------------------------------------------------------------------------------------------
#
# Stockfish 15.1's whole levels are not spaced as their labels say at 5 s + 0.05 s (its own
# games between consecutive levels: docs/limited-strength.md, "Stockfish's staircase and its
# measured ladder"). The ladder reading fits each whole level k's place m_k beside lazuli's curve R(x): lazuli at x
# against Stockfish at level k expects E(R(x) - m_k), Stockfish at k1 against k2 expects
# E(m_k1 - m_k2). m_0 is pinned at level 0's label (only differences are measured); each step
# m_k - m_(k-1) has a normal prior centred on its labels' step with standard deviation `sigma`,
# which decides the steps no game measures and barely moves those that 100 games do. The Elo
# reported for lazuli is then read back onto the labels through the ladder
# (`ladder_to_label`): a strength equal to m_k is level k's label, between two levels linear.
# So `UCI_Elo` L_k means "plays as Stockfish's whole level k does", which is exactly what an
# X-against-X check at a whole level tests.

# The prior's standard deviation of a step of the ladder about its labels' step, in Elo: wide
# enough that 100 games between two levels (about +-60 Elo alone) move their step, narrow
# enough to keep a step that no game measures near its label.
LADDER_SIGMA = 60.0


def sf_whole_level(elo):
    """Stockfish 15.1's whole level at `UCI_Elo` elo: int(level), the depth it picks at less one."""
    return math.floor(sf_level(elo))


def ladder_to_label(r, places):
    """A strength on the ladder's scale read as a `UCI_Elo` label: linear between whole levels'
    places (`places[k]` is m_k) and their labels, along the end segments beyond them."""
    labels = [sf_label_of_level(k) for k in range(len(places))]
    if len(places) == 1:
        return labels[0] + r - places[0]
    i = 0
    while i < len(places) - 2 and r > places[i + 1]:
        i += 1
    t = (r - places[i]) / (places[i + 1] - places[i])
    return labels[i] + t * (labels[i + 1] - labels[i])


def ladder_groups(by):
    """{(a, b): [games, points]} of {name: (a, b, [(y1, y2), ...])}: pairs summed by their two
    sides (lazuli's level and Stockfish's whole level, or Stockfish's two levels)."""
    return tally((a, b, y) for a, b, pairs in by.values() for p in pairs for y in p)


def ladder_fit(knots, lz_groups, sf_groups, top_level, sigma=LADDER_SIGMA, prior_draws=1.0):
    """lazuli's monotone piecewise-linear curve and Stockfish's ladder, fitted together.
    `lz_groups`: {(x, k): [games, lazuli's points]} for lazuli at level x against Stockfish's
    whole level k; `sf_groups`: {(k1, k2): [games, k1's points]}; levels 0..top_level are
    fitted. Returns (curve, theta, places): places[k] is m_k (m_0 = level 0's label); the
    curve's Elo is on the ladder's scale (ladder_to_label reads it as a label)."""
    curve = PiecewiseLinear(knots)
    labels = [sf_label_of_level(k) for k in range(top_level + 1)]

    def minus(a, b):  # the (coef, constant) of a - b, each a (coef, constant)
        coef = dict(a[0])
        for i, v in b[0].items():
            coef[i] = coef.get(i, 0.0) - v
        return coef, a[1] - b[1]

    while True:
        dc = len(curve.blocks)

        def m(k):  # (coef, constant) of m_k: m_0 is the constant, m_k (k >= 1) is phi[dc + k - 1]
            return ({}, labels[0]) if k == 0 else ({dc + k - 1: 1.0}, 0.0)

        rows = []
        for (x, k), (n, pts) in lz_groups.items():
            r = ({i: b for i, b in enumerate(curve.basis(x)) if b != 0.0}, 0.0)
            rows.append((*minus(r, m(k)), n, pts))
        for (k1, k2), (n, pts) in sf_groups.items():
            coef, const = minus(m(k1), m(k2))
            if coef:
                rows.append((coef, const, n, pts))
        prior = []
        for k in range(1, top_level + 1):
            coef, const = minus(m(k), m(k - 1))
            prior.append((coef, labels[k] - labels[k - 1] - const, sigma))
        mean = sum(labels[k] * n for (_, k), (n, _) in lz_groups.items()) / sum(
            n for n, _ in lz_groups.values())
        phi, _ = maximise([mean] * dc + labels[1:], rows, prior, prior_draws)
        theta, places = phi[:dc], [labels[0]] + phi[dc:]
        pooled = pool_first_violator(curve, theta)
        if pooled is None:
            if any(b <= a for a, b in zip(places, places[1:])):
                raise ValueError("the fitted ladder does not rise at every step: more games needed")
            return curve, theta, places
        curve = pooled


def ladder_bootstrap(knots, lz_pairs, sf_pairs, top_level, resamples, seed, sigma=LADDER_SIGMA,
                     prior_draws=1.0):
    """95% intervals of the label-scale Elo at each knot and of each level's place relative to
    its label (m_k - L_k), from refits on pairs drawn again with replacement within each point
    and each Stockfish probe. `lz_pairs`: {point: (x, k, [(y1, y2), ...])}; `sf_pairs`:
    {probe: (k1, k2, [(y1, y2), ...])}. Returns ([(low, high)] per knot, [(low, high)] per
    level)."""
    rng = random.Random(seed)
    knot_samples, place_samples = [], []
    for _ in range(resamples):
        lz, sf = (tally(resampled(rng, by)) for by in (lz_pairs, sf_pairs))
        curve, theta, places = ladder_fit(knots, lz, sf, top_level, sigma, prior_draws)
        knot_samples.append([ladder_to_label(e, places) for e in curve.knot_values(theta)])
        place_samples.append([p - sf_label_of_level(k) for k, p in enumerate(places)])
    return bands(knot_samples), bands(place_samples)


# ---------------------------------------------------------------------------------------------
# src/params.rs
# ---------------------------------------------------------------------------------------------

def anchors(levels, elos):
    """(Elo, level) anchors for SKILL_ELO_ANCHORS: the Elo rounded, strictly increasing (a tie
    after rounding or pooling is moved up by 1 Elo, since src/search/skill.rs interpolates
    between anchors of different Elo)."""
    out = []
    for level, elo in sorted(zip(levels, elos)):
        e = round(elo)
        if out and e <= out[-1][0]:
            e = out[-1][0] + 1
        out.append((e, float(level)))
    return out


def rust_anchors(anchor_list, max_level=20):
    """The constant as src/params.rs declares it."""
    rows = []
    for elo, level in anchor_list:
        lv = "SKILL_MAX_LEVEL as f64" if level == max_level else f"{level:.1f}"
        rows.append(f"    ({elo}, {lv}),")
    return (f"pub(crate) const SKILL_ELO_ANCHORS: [(i64, f64); {len(anchor_list)}] = [\n"
            + "\n".join(rows) + "\n];")


ANCHORS_RE = re.compile(r"pub\(crate\) const SKILL_ELO_ANCHORS: \[\(i64, f64\); \d+\] = \[.*?\n\];", re.S)


def parse_anchors(params_text, max_level=20):
    """SKILL_ELO_ANCHORS as params.rs declares them, [(Elo, level)]: the inverse of
    rust_anchors; ValueError if the constant is not found once."""
    found = ANCHORS_RE.findall(params_text)
    if len(found) != 1:
        raise ValueError("SKILL_ELO_ANCHORS not found once in params.rs")
    rows = re.findall(r"\((\d+), ([^)]+)\),", found[0].split("= [", 1)[1])
    return [(int(e), float(max_level) if lv == "SKILL_MAX_LEVEL as f64" else float(lv)) for e, lv in rows]


def replace_anchors(params_text, anchor_list):
    """params.rs's text with SKILL_ELO_ANCHORS replaced; ValueError if it is not found once."""
    if len(ANCHORS_RE.findall(params_text)) != 1:
        raise ValueError("SKILL_ELO_ANCHORS not found once in params.rs")
    return ANCHORS_RE.sub(lambda _: rust_anchors(anchor_list), params_text)


# ---------------------------------------------------------------------------------------------
# The chart.
# ---------------------------------------------------------------------------------------------

def svg_chart(title, xlabel, curve_pts, knots, points, sf_points, hlines=()):
    """A plain SVG: the fitted curve (`curve_pts`: [(x, elo)]), the knots with their intervals
    (`knots`: [(x, elo, low, high)]), each point's own estimate with its pentanomial interval
    (`points`: [(x, elo, low, high)], drawn a little to the right) and the Stockfish opponents
    (`sf_points`: [(x, elo)], squares); `hlines`: [(elo, label)], dashed."""
    w, h, ml, mr, mt, mb = 720, 460, 70, 20, 40, 50
    ys = [e for _, e in curve_pts] + [v for k in knots for v in k[1:]] + [e for _, e in sf_points]
    ys += [v for p in points for v in p[1:]] + [e for e, _ in hlines]
    ys = [y for y in ys if math.isfinite(y)]
    ymin, ymax = math.floor(min(ys) / 100) * 100, math.ceil(max(ys) / 100) * 100
    if ymax <= ymin:
        ymax = ymin + 100
    xs = [x for x, _ in curve_pts] + [k[0] for k in knots]
    xmin, xmax = min(xs), max(xs)
    if xmax <= xmin:
        xmax = xmin + 1

    def px(x):
        return ml + (x - xmin) / (xmax - xmin) * (w - ml - mr)

    def py(y):
        y = min(max(y, ymin), ymax)
        return h - mb - (y - ymin) / (ymax - ymin) * (h - mt - mb)

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" '
           f'viewBox="0 0 {w} {h}" font-family="sans-serif" font-size="12">',
           f'<rect width="{w}" height="{h}" fill="white"/>',
           f'<text x="{w / 2}" y="22" text-anchor="middle" font-size="15">{title}</text>']
    step = 100 if ymax - ymin <= 1200 else 200
    y = ymin
    while y <= ymax:
        out.append(f'<line x1="{ml}" x2="{w - mr}" y1="{py(y):.1f}" y2="{py(y):.1f}" stroke="#ddd"/>')
        out.append(f'<text x="{ml - 6}" y="{py(y) + 4:.1f}" text-anchor="end">{y}</text>')
        y += step
    xstep = 1 if xmax - xmin <= 20 else 10 ** math.floor(math.log10(xmax - xmin))
    x = math.ceil(xmin / xstep) * xstep
    while x <= xmax + 1e-9:
        out.append(f'<text x="{px(x):.1f}" y="{h - mb + 16}" text-anchor="middle">{x:g}</text>')
        x += xstep
    out.append(f'<line x1="{ml}" x2="{w - mr}" y1="{h - mb}" y2="{h - mb}" stroke="black"/>')
    out.append(f'<line x1="{ml}" x2="{ml}" y1="{mt}" y2="{h - mb}" stroke="black"/>')
    out.append(f'<text x="{(ml + w - mr) / 2}" y="{h - 10}" text-anchor="middle">{xlabel}</text>')
    out.append(f'<text x="16" y="{(mt + h - mb) / 2}" text-anchor="middle" '
               f'transform="rotate(-90 16 {(mt + h - mb) / 2})">Elo on Stockfish 15.1\'s UCI_Elo scale</text>')
    for e, text in hlines:
        out.append(f'<line x1="{ml}" x2="{w - mr}" y1="{py(e):.1f}" y2="{py(e):.1f}" stroke="#555" '
                   f'stroke-dasharray="6 4"/>')
        out.append(f'<text x="{w - mr - 4}" y="{py(e) - 4:.1f}" text-anchor="end" fill="#555">{text}</text>')
    path = " ".join(f"{px(x):.1f},{py(e):.1f}" for x, e in curve_pts)
    out.append(f'<polyline points="{path}" fill="none" stroke="#1f5fbf" stroke-width="2"/>')
    for x, e in sf_points:
        out.append(f'<rect x="{px(x) - 4:.1f}" y="{py(e) - 4:.1f}" width="8" height="8" '
                   f'fill="none" stroke="#c03030" stroke-width="1.5"/>')
    for x, e, lo, hi in points:
        xx = px(x) + 6
        out.append(f'<line x1="{xx:.1f}" x2="{xx:.1f}" y1="{py(lo):.1f}" y2="{py(hi):.1f}" stroke="#888"/>')
        out.append(f'<circle cx="{xx:.1f}" cy="{py(e):.1f}" r="2.5" fill="#888"/>')
    for x, e, lo, hi in knots:
        out.append(f'<line x1="{px(x):.1f}" x2="{px(x):.1f}" y1="{py(lo):.1f}" y2="{py(hi):.1f}" '
                   f'stroke="#1f5fbf" stroke-width="1.5"/>')
        for yy in (lo, hi):
            out.append(f'<line x1="{px(x) - 4:.1f}" x2="{px(x) + 4:.1f}" y1="{py(yy):.1f}" '
                       f'y2="{py(yy):.1f}" stroke="#1f5fbf" stroke-width="1.5"/>')
        out.append(f'<circle cx="{px(x):.1f}" cy="{py(e):.1f}" r="4" fill="#1f5fbf"/>')
    lx, ly = ml + 12, mt + 8
    legend = [("#1f5fbf", "fit: Elo of the level, 95% bootstrap interval"),
              ("#888", "each point alone: pentanomial 95% interval"),
              ("#c03030", "Stockfish opponent (its UCI_Elo)")]
    for i, (colour, text) in enumerate(legend):
        yy = ly + 16 * i
        out.append(f'<rect x="{lx}" y="{yy - 8}" width="9" height="9" fill="{colour}"/>')
        out.append(f'<text x="{lx + 14}" y="{yy}">{text}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


# ---------------------------------------------------------------------------------------------
# Synthetic games, for the self-test.
# ---------------------------------------------------------------------------------------------

def simulate(true_elo, points, pairs, seed, draw_rate=0.3):
    """Game pairs drawn from the model: {point: (level, opponent, [(y1, y2), ...])} for
    `points` [(level, opponent)], each game a win, draw or loss with the logistic expectation
    of true_elo(level) - opponent and draws at about `draw_rate`."""
    rng = random.Random(seed)
    out = {}
    for level, opp in points:
        e = expected(true_elo(level) - opp)
        d = min(draw_rate, 1.8 * min(e, 1 - e))
        win = e - d / 2

        def game():
            r = rng.random()
            return 1.0 if r < win else 0.5 if r < win + d else 0.0

        out[(level, opp)] = (level, opp, [(game(), game()) for _ in range(pairs)])
    return out
