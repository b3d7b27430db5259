"""``benchmarks/bots.py``: saved match runs, pooled and compared game by game."""

from __future__ import annotations

import json
import random
import re
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

from benchfiles import load_benchmark
from botfiles import plugin_file
from piepmatz.sim.stats import wilson
from scenarios import played

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "bots.py"


@pytest.fixture(scope="module")
def bench() -> ModuleType:
    return load_benchmark("bots")


def _write(path: Path, results: dict[tuple[int, int], float], first: str = "a") -> str:
    with path.open("w") as f:
        for (deal, seat), r in results.items():
            record = {"first": first, "second": "b", "players": 4, "deal": deal, "seat": seat}
            f.write(json.dumps(record | {"result": r, "seconds": 0.1}) + "\n")
    return str(path)


def test_match_saves_one_record_per_game(bench: ModuleType, tmp_path: Path) -> None:
    out = tmp_path / "run.jsonl"
    rate, n, _, _ = bench.match("random", "random", 2, 3, 1, first_deal=5, save=str(out))
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert n == len(records) == 6
    assert {(r["deal"], r["seat"]) for r in records} == {(d, s) for d in (5, 6, 7) for s in (0, 1)}
    assert {r["first"] for r in records} == {"random"} and records[0]["players"] == 2
    assert sum(r["result"] for r in records) / n == pytest.approx(rate)
    assert bench.load_runs([str(out)]) == {(r["deal"], r["seat"]): r["result"] for r in records}


def test_pooled_rotations_that_cancel_have_no_deal_variance(bench: ModuleType) -> None:
    # Each deal is won in exactly one of its four seats: every deal's mean is 25 %, so the
    # per-deal interval has no width while Wilson's, which assumes independent games, has.
    results = {(d, s): 1.0 if s == d % 4 else 0.0 for d in range(8) for s in range(4)}
    text = bench.pooled(results)
    assert text.startswith("8/32 = 25.0%, 95% Wilson [13.3%, 42.1%]")
    assert text.endswith("per deal (8 deals) [25.0%, 25.0%], design effect 0.00")


def test_anytime_interval_is_over_deals_and_wider_than_one_look(bench: ModuleType) -> None:
    # 2,400 deals of four independent games won at 40 %: between the Wilson interval's lower end
    # and the confidence sequence's lies a target that Wilson decides and the sequence (valid
    # however often the runs were pooled before) does not.
    rng = random.Random(3)
    results = {(d, s): float(rng.random() < 0.4) for d in range(2400) for s in range(4)}
    pattern = (
        r"valid at every look \(a confidence sequence over the deals\): \[([\d.]+)%, ([\d.]+)%\]"
    )
    m = re.fullmatch(pattern, bench.anytime(results))
    assert m, bench.anytime(results)
    low, high = float(m[1]) / 100, float(m[2]) / 100
    wilson_low, wilson_high = wilson(sum(results.values()), len(results))
    assert low < wilson_low - 0.005 and high > wilson_high + 0.005
    target = round((low + wilson_low) / 2, 3)
    assert bench.verdict(results, target).startswith("decided: the Wilson interval lies above")
    assert bench.anytime(results, target).endswith(f"; not decided: it holds {target:.1%}")
    assert bench.anytime(results, low - 0.01).endswith(f"decided: it lies above {low - 0.01:.1%}")
    assert bench.anytime(results, high + 0.01).endswith(f"decided: it lies below {high + 0.01:.1%}")
    # An incomplete deal is left out, as in the per-deal interval.
    assert bench.deal_means({(0, 0): 1.0, (0, 1): 0.0, (1, 0): 1.0}) == [0.5]


def test_paired_difference_on_common_games(bench: ModuleType) -> None:
    old = {(d, s): 0.0 for d in range(4) for s in range(4)}
    new = dict(old) | {(0, 0): 1.0, (1, 1): 1.0}
    new[(9, 0)] = 1.0  # not in the old run: left out of the comparison
    text = bench.paired(new, old)
    assert text.startswith("16 paired games: 12.5% against 0.0%, difference +12.5%")
    with pytest.raises(SystemExit, match="only 0 games in common"):
        bench.paired({(1, 0): 1.0}, {(2, 0): 0.0})


def test_verdict_says_whether_the_interval_decides(bench: ModuleType) -> None:
    def run(wins: int, games: int) -> dict[tuple[int, int], float]:
        return {(g, 0): 1.0 if g < wins else 0.0 for g in range(games)}

    assert bench.verdict(run(450, 1000), 0.4) == "decided: the Wilson interval lies above 40.0%"
    assert bench.verdict(run(350, 1000), 0.4) == "decided: the Wilson interval lies below 40.0%"
    assert "no number of games decides it" in bench.verdict(run(40, 100), 0.4)
    # 41 % over 1,000 games: 1.96² · 0.41 · 0.59 / 0.01² ≈ 9,293 games in all.
    assert bench.verdict(run(410, 1000), 0.4) == (
        "not decided: the Wilson interval holds 40.0%; if the true rate were 41.0%, about "
        "9,293 games in all would decide it (8,293 more)"
    )


def test_load_runs_refuses_mixed_or_broken_files(bench: ModuleType, tmp_path: Path) -> None:
    a = _write(tmp_path / "a.jsonl", {(0, 0): 1.0})
    other = _write(tmp_path / "c.jsonl", {(1, 0): 0.0}, first="c")
    with pytest.raises(SystemExit, match="differs from"):
        bench.load_runs([a, other])
    with pytest.raises(SystemExit, match="deal 0 seat 0 twice"):
        bench.load_runs([a, a])
    broken = tmp_path / "broken.jsonl"
    broken.write_text('{"first": "a"}\n')
    with pytest.raises(SystemExit, match=r"broken.jsonl:1: not a match --save record"):
        bench.load_runs([str(broken)])
    with pytest.raises(SystemExit, match=r"gone.jsonl: cannot read \(No such file"):
        bench.load_runs([a, str(tmp_path / "gone.jsonl")])


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["match", "random", "random", "--games", "0"], "--games must be at least 1, not 0"),
        (["match", "random", "random", "--processes", "x"], "--processes must be a whole number"),
        (["match", "random", "random", "--players", "5"], "invalid choice: 5"),
        (["match", "random", "nosuch"], "unknown bot 'nosuch'"),
        (["match", "random", "random", "--save", "/nonexistent/r.jsonl"], "not writable"),
        (["speed", "--positions", "0"], "--positions must be at least 1"),
    ],
)
def test_bad_arguments_are_refused_before_any_game(
    bench: ModuleType, args: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exc:
        bench.main(args)
    assert exc.value.code == 2
    captured = capsys.readouterr()
    assert message in captured.err and captured.out == ""


def test_match_measures_a_plugin_bot(tmp_path: Path) -> None:
    plugin = plugin_file(tmp_path / "variant.py", "first")
    out = tmp_path / "run.jsonl"
    args = ["match", "--plugin", str(plugin), "first", "random", "--games", "2"]
    args += ["--processes", "2", "--save", str(out)]
    run = subprocess.run(
        [sys.executable, str(SCRIPT), *args], capture_output=True, text=True, timeout=120
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout.startswith("first vs 1x random, 2 players:")
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert sorted((r["deal"], r["seat"]) for r in records) == [(0, 0), (0, 1), (1, 0), (1, 1)]
    assert {r["first"] for r in records} == {"first"}


RUNS = SCRIPT.parent / "runs"


def _first_deal(path: str) -> int:
    """The first of the 100 deals a run file holds, which its name ends with."""
    return int(Path(path).stem.rsplit("-", 1)[1])


def test_every_committed_run_is_listed_in_the_runs_readme() -> None:
    """Each run file has its row in ``benchmarks/runs/README.md``, and each row its file."""
    listed = re.findall(r"^\| `([\w.-]+\.jsonl)` \|", (RUNS / "README.md").read_text(), re.M)
    assert len(listed) == len(set(listed))
    assert {p.name for p in RUNS.glob("*.jsonl")} == set(listed)


@pytest.mark.parametrize(
    ("run", "deal"),
    [
        ("ismcts-1s-4p", 12004),  # the search of plays only (search=plays, until 2026-12-01)
        ("plays-1s-4p", 11087),  # the same with a tree of plays (ismcts:tree=plays)
        ("lasthand-1s-4p", 11023),  # the shipped search, with its last hand searched
    ],
)
def test_the_committed_runs_are_whole_and_replay(bench: ModuleType, run: str, deal: int) -> None:
    """The saved one-second runs quoted in the README: complete, one pairing, and still this bot's.

    Replaying one game that the bot won checks that the records describe the search they name; a
    change to the bot or the rules that alters play fails here, and its runs must be redone.
    """
    paths = sorted(str(p) for p in RUNS.glob(f"{run}-*.jsonl"))
    assert paths
    results = bench.load_runs(paths)  # which refuses files of more than one pairing
    # Each file holds every seat of the 100 deals from the first deal its name ends with.
    firsts = [_first_deal(p) for p in paths]
    assert set(results) == {(d, s) for f in firsts for d in range(f, f + 100) for s in range(4)}
    assert len(results) == 400 * len(paths)
    with open(paths[0], encoding="utf-8") as records:
        spec = json.loads(records.readline())["first"]
    winners = bench.play_game([spec, *["heuristic"] * 3], deal, 4, deal * 16)
    assert results[(deal, 0)] == (1.0 / len(winners) if 0 in winners else 0.0) == 1.0


def test_the_screened_variants_change_only_what_they_name(monkeypatch: pytest.MonkeyPatch) -> None:
    """``benchmarks/variants.py``: each variant is the shipped search with one thing swapped."""
    import random

    import piepmatz.bots
    import piepmatz.bots.plugins
    from piepmatz.bots import ISMCTSBot, load_plugins, make_bot
    from piepmatz.bots.evaluate import rewards
    from piepmatz.core.state import State
    from piepmatz.core.view import view_of

    monkeypatch.setattr(piepmatz.bots, "_FACTORIES", dict(piepmatz.bots._FACTORIES))
    monkeypatch.setattr(piepmatz.bots.plugins, "_LOADED", {})
    load_plugins([str(SCRIPT.parent / "variants.py")])

    rmean, rpair = make_bot("rmean:iterations=50"), make_bot("rpair:iterations=50")
    assert isinstance(rmean, ISMCTSBot) and rmean.iterations == 50
    assert rmean.name == "rmean:iterations=50"
    for seed in range(5):
        # With one opponent, the best other, the mean of the others and each other coincide.
        two = played(2, seed, 12)
        assert rmean.evaluate(two) == pytest.approx(rewards(two))
        assert rpair.evaluate(two) == pytest.approx(rewards(two))
    four = [played(4, seed, 12) for seed in range(20)]
    assert any(rmean.evaluate(w) != pytest.approx(rewards(w)) for w in four)
    assert any(rpair.evaluate(w) != pytest.approx(rmean.evaluate(w)) for w in four)

    # Zero heuristic steps is exactly the shipped search; three change the rollouts.
    state = State.new_game(players=4, seed=3)
    view = view_of(state, state.current_player)

    def visits(spec: str) -> dict[int, int]:
        bot = make_bot(spec)
        assert isinstance(bot, ISMCTSBot)
        return {a: c.visits for a, c in bot.search(view, random.Random(1)).children.items()}

    shipped = visits("ismcts:iterations=200")
    assert visits("mix:k=0,iterations=200") == shipped
    assert visits("mix:k=3,iterations=200") != shipped


def _phase_view(phase: int, seed_from: int = 0) -> tuple[object, list[int]]:
    """The view and legal actions of the first position of a random four-player game in
    ``phase`` with a choice to make."""
    import random

    from piepmatz.core.state import State
    from piepmatz.core.view import view_of

    for seed in range(seed_from, seed_from + 200):
        state = State.new_game(players=4, seed=seed)
        rng = random.Random(seed)
        while not state.is_over():
            legal = state.legal_action_ids()
            if state.phase == phase and len(legal) > 1:
                return view_of(state, state.current_player), legal
            state.apply_id(legal[rng.randrange(len(legal))])
    raise AssertionError(f"no position in phase {phase}")


def test_the_screened_variants_search_what_they_name(monkeypatch: pytest.MonkeyPatch) -> None:
    """``ens`` and ``scoll``: which decisions each searches, and how ``ens`` splits."""
    import random

    import piepmatz.bots
    import piepmatz.bots.plugins
    from piepmatz.bots import ISMCTSBot, load_plugins, make_bot
    from piepmatz.core.state import COLLECT, DRAW, LAST_HAND, PLAY

    monkeypatch.setattr(piepmatz.bots, "_FACTORIES", dict(piepmatz.bots._FACTORIES))
    monkeypatch.setattr(piepmatz.bots.plugins, "_LOADED", {})
    load_plugins([str(SCRIPT.parent / "variants.py")])

    views = {phase: _phase_view(phase)[0] for phase in (PLAY, COLLECT, DRAW, LAST_HAND)}
    bots = {name: make_bot(f"{name}:iterations=9") for name in ("ismcts", "scoll")}
    searched = {
        name: {phase for phase, v in views.items() if bot.searches(v)}  # type: ignore[attr-defined]
        for name, bot in bots.items()
    }
    assert searched == {"ismcts": {PLAY, LAST_HAND}, "scoll": {PLAY, COLLECT}}

    # ens: two searches, the tree of every decision then the tree of plays, in equal time.
    ens = make_bot("ens:iterations=400")
    assert isinstance(ens, ISMCTSBot)
    runs: list[tuple[str, int | None]] = []
    search = ISMCTSBot.search

    def spy(self: ISMCTSBot, *args: object, **kwargs: object) -> object:
        runs.append((self.tree, self.iterations))
        return search(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(ISMCTSBot, "search", spy)
    view, legal = _phase_view(PLAY)
    choice = ens.choose(view, legal, random.Random(2))  # type: ignore[arg-type]
    assert choice in legal
    assert runs == [("all", 200), ("plays", 154)]
    assert (ens.tree, ens.iterations) == ("all", 400)  # restored for the next decision


def test_the_learned_leaf_estimate(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``benchmarks/learned.py``: its features, its fit and the search it plugs into."""
    import piepmatz.bots
    from piepmatz.bots import ISMCTSBot
    from piepmatz.bots.evaluate import rewards
    from piepmatz.core.cards import FEEDER_EGGS

    monkeypatch.setattr(piepmatz.bots, "_FACTORIES", dict(piepmatz.bots._FACTORIES))
    learned = load_benchmark("learned")

    world = played(4, 7, 60)
    rows = learned.features(world)
    assert len(rows) == 4 and all(len(r) == 22 for r in rows)
    left = (len(world.feeder_deck) + len(world.column)) / 36
    for p, row in enumerate(rows):
        eggs = sum(FEEDER_EGGS[s] for s in world.seed_pile(p))
        assert row[:3] == [1.0, pytest.approx(left), eggs]
        assert row[12:] == [pytest.approx(x * left) for x in row[2:12]]

    # A small fit: one weight per feature, and its figures against the search's own estimate.
    weights = learned.fit(games=40, first_deal=5, processes=1)
    assert len(weights) == 22
    out = capsys.readouterr().out
    assert "standings: final-margin correlation" in out and "learned: " in out

    path = tmp_path / "value-4p.json"
    path.write_text(json.dumps({"games": 40, "weights": weights}))
    monkeypatch.setattr(learned, "WEIGHTS", path)
    bot = learned._build("iterations=30")
    assert isinstance(bot, ISMCTSBot) and bot.iterations == 30
    assert bot.name == "learned:iterations=30"
    values = bot.evaluate(world)
    assert all(0.0 < v < 1.0 for v in values)
    assert values != pytest.approx(rewards(world))  # a different estimate of the same position
    end = played(4, 7, 10_000)
    assert end.is_over() and bot.evaluate(end) == pytest.approx(rewards(end))  # the score itself


NUMBER_WORDS = (
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen"
    " fifteen sixteen seventeen eighteen nineteen twenty twenty-one twenty-two twenty-three"
    " twenty-four twenty-five twenty-six twenty-seven twenty-eight twenty-nine thirty"
)


def test_the_pooled_one_second_figure_is_the_one_quoted(bench: ModuleType) -> None:
    """The README and docs/bot-strength.md quote what ``bots.py pool`` prints for the runs.

    The four-player figure and its interval valid at every look are typed by hand in three
    places; adding a run without updating them (or updating them wrongly) fails here.
    """
    paths = sorted(str(p) for p in RUNS.glob("lasthand-1s-4p-*.jsonl"))
    printed = bench.pooled(bench.load_runs(paths))
    m = re.fullmatch(
        r"([\d.]+)/(\d+) = ([\d.]+)%, 95% Wilson \[([\d.]+)%, ([\d.]+)%\]; "
        r"per deal \(\d+ deals\) \[([\d.]+)%, ([\d.]+)%\], design effect [\d.]+",
        printed,
    )
    assert m, printed
    wins, n = float(m[1]), int(m[2])
    # As the docs write them: "40.1 %", "(2,569/6,400)", "(825.3/2,000)".
    rate = f"{m[3]} %"
    interval = f"[{m[4]} %, {m[5]} %]"
    games = f"({wins:,.1f}/{n:,})".replace(".0/", "/")
    runs = NUMBER_WORDS.split()[len(paths)]
    root = SCRIPT.parents[1]
    readme = " ".join((root / "README.md").read_text().split())  # paragraphs are wrapped
    assert f"**{rate}** {games} {interval} ({runs} runs of 400 games," in readme
    assert f"the shipped search wins {rate} {interval} of {n:,} four-player games" in readme
    doc = (root / "docs" / "bot-strength.md").read_text()
    per_deal = f"per-deal interval [{m[6]} %, {m[7]} %]"
    seq = re.fullmatch(r".*: \[([\d.]+)%, ([\d.]+)%\]", bench.anytime(bench.load_runs(paths)))
    assert seq
    every_look = f"[{seq[1]} %, {seq[2]} %]"
    assert (
        f"| **all** | **{rate} {games} {interval}**; {per_deal}; valid at every look {every_look} |"
        in doc
    )
    assert f"`bots.py pool` prints too) is wider still: {every_look}." in readme
    for path in paths:
        first = _first_deal(path)
        assert f"\n| {first}–{first + 99} | " in doc, f"no row for {Path(path).name}"
