"""Swiss tournaments end to end with scripted models whose strengths follow real Chatbot Arena
ratings: order recovered in O(n log n) battles, resume after crashes, adding a model, reports."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from inspect_arenahard.arena.config import load_config
from inspect_arenahard.arena.standings import format_report, tournament_report
from inspect_arenahard.arena.tournament import Tournament, TournamentError
from inspect_arenahard.cli import main as cli
from inspect_arenahard.report.score_table_files import load_score_table
from tests.helpers.arena_scripted import Arena
from tests.helpers.battle_questions import write_questions
from tests.helpers.shared_data import shared
from tests.helpers.tournament import (
    ARENA_FILE,
    NEWCOMER,
    QUESTIONS,
    TRUTH,
    arena,
    mock,
    write_config,
)

ARENA_CSV = shared(*ARENA_FILE)
# finished (tests/arena/conftest.py): one complete 6-model tournament shared by the read-only tests


def copy(tournament: Tournament, to: Path, players: Arena) -> Tournament:
    shutil.copytree(tournament.folder, to / "tournament")
    return Tournament.open(to / "tournament", model_factory=players.model)


def test_arena_file_orders_the_scripted_strengths() -> None:
    table = load_score_table(ARENA_CSV)
    scores = [table.entries[m].score for m in TRUTH]
    assert scores == sorted(scores, reverse=True)


def test_swiss_tournament_recovers_the_order_in_n_log_n_battles(finished) -> None:  # type: ignore[no-untyped-def]
    tournament, players = finished
    state = tournament.state
    assert state.ratings().ranking() == [mock(m) for m in TRUTH]
    # ⌈log2 6⌉ = 3 rounds of 3 pairings: 9 of the 15 pairs a round robin needs
    assert [s.name for s in state.stages] == ["round 1", "round 2", "round 3"]
    pairs = [frozenset((p.model, p.opponent)) for s in state.stages for p in s.pairings]
    assert len(pairs) == 9 and len(set(pairs)) == 9
    assert players.battles_started() == 9 * 2
    assert sum(_samples(path) for path in tournament.log_paths()) == 18
    # round 1 pairs prior neighbours; every stage left a ratings snapshot
    prior = [mock(m) for m in reversed(TRUTH)]
    assert [(p.model, p.opponent) for p in state.stages[0].pairings] == [
        (prior[0], prior[1]),
        (prior[2], prior[3]),
        (prior[4], prior[5]),
    ]
    assert all(s.ratings is not None for s in state.stages)


def _samples(path: Path) -> int:
    from inspect_ai.log import read_eval_log

    return len(read_eval_log(str(path)).samples or [])


def test_committee_is_the_current_top_three_without_the_players(finished) -> None:  # type: ignore[no-untyped-def]
    tournament, players = finished
    ranking_before = [tournament.state.prior_order] + [
        [r["model"] for r in s.ratings["rows"]]
        for s in tournament.state.stages  # type: ignore[index]
    ]
    for stage, ranking in zip(tournament.state.stages, ranking_before):
        for p in stage.pairings:
            others = [m for m in ranking if m not in (p.model, p.opponent)]
            assert p.committee == others[:3]
            assert p.reference == others[0]
    # the judges that were asked are exactly the planned committees
    judged_by = {who for who, kind, _ in players.calls if kind == "judge"}
    assert judged_by <= {
        m for s in tournament.state.stages for p in s.pairings for m in p.committee
    }


def test_report_correlates_with_chatbot_arena_and_counts_agreement(
    finished, tmp_path: Path, capsys
) -> None:  # type: ignore[no-untyped-def]
    tournament, _ = finished
    names = tmp_path / "names.json"
    names.write_text(json.dumps({mock(m): m for m in TRUTH}), encoding="utf-8")
    report = tournament_report(tournament, ARENA_CSV, names)
    assert report.correlation is not None
    assert report.correlation.rho == pytest.approx(1.0) and len(report.correlation.pairs) == 6
    assert report.battles == 18 and report.unscored == 0 and report.pairings == 9
    assert report.agreement["items"] == 18 and report.agreement["agreement_before"] == 1.0
    assert report.history[-1][1] == [mock(m) for m in TRUTH]
    text = format_report(report)
    assert "Spearman 1.000" in text and "18 battles (0 without a committee verdict" in text
    out = tmp_path / "report.json"
    assert (
        cli(
            [
                "tournament",
                "report",
                str(tournament.folder),
                "--reference",
                str(ARENA_CSV),
                "--name-map",
                str(names),
                "--json",
                str(out),
            ]
        )
        == 0
    )
    assert json.loads(out.read_text())["correlation"]["spearman"] == pytest.approx(1.0)


def test_leaderboard_cli_ranks_tournament_logs(finished, capsys) -> None:  # type: ignore[no-untyped-def]
    tournament, _ = finished
    logs = str(tournament.folder / "logs")
    # the command as written: model-vs-model battles are anchored at the most-played model
    assert cli(["leaderboard", logs, "--method", "bt", "--rounds", "10"]) == 0
    auto = capsys.readouterr().out.split("\n\n")[0]
    auto_rows = [line.split()[1] for line in auto.splitlines() if line[:4].strip().isdigit()]
    assert sorted(auto_rows) == sorted(mock(m) for m in TRUTH) and "(baseline)" in auto
    assert (
        cli(
            [
                "leaderboard",
                logs,
                "--method",
                "bt",
                "--baseline",
                mock("gpt-4-0314"),
                "--rounds",
                "10",
            ]
        )
        == 0
    )
    out = capsys.readouterr().out.split("\n\n")[0]
    rows = [line.split()[1] for line in out.splitlines() if line[:4].strip().isdigit()]
    assert sorted(rows) == sorted(mock(m) for m in TRUTH)
    assert rows == auto_rows  # the anchor shifts the scale, not the order


def test_resume_after_a_crash_mid_round(tmp_path: Path) -> None:
    players = arena()
    players.crash = {"llama-3-70b-instruct"}
    tournament = Tournament.create(write_config(tmp_path), model_factory=players.model)
    with pytest.raises(
        TournamentError, match=r"round 1: 1 of 3 pairings failed .*run again to resume"
    ):
        tournament.run()
    [stage] = tournament.state.stages
    assert [p.log is not None for p in stage.pairings] == [
        True,
        False,
        True,
    ] and stage.ratings is None
    started = players.battles_started()
    players.crash = set()
    resumed = Tournament.create(
        write_config(tmp_path), model_factory=players.model
    )  # a fresh process
    resumed.run()
    # only the failed pairing was played again, then rounds 2 and 3
    assert players.battles_started() - started == 2 + 2 * 2 * 3
    assert resumed.state.ratings().ranking() == [mock(m) for m in TRUTH]
    assert sum(len(s.pairings) for s in resumed.state.stages) == 9


def test_a_log_written_before_the_crash_is_adopted_not_replayed(finished, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    tournament, players = finished
    crashed = copy(tournament, tmp_path, players)
    last = crashed.state.stages[-1]
    last.ratings, last.pairings[1].log = (
        None,
        None,
    )  # the process died after the eval, before saving
    crashed.save()
    before = players.battles_started()
    resumed = Tournament.open(crashed.folder, model_factory=players.model)
    resumed.run()
    assert players.battles_started() == before
    assert resumed.state.stages[-1].pairings[1].log == tournament.state.stages[-1].pairings[1].log
    assert resumed.state.ratings().ranking() == tournament.state.ratings().ranking()


def test_adding_a_model_plays_log2_n_battles_against_its_nearest_rivals(
    finished, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    tournament, players = finished
    grown = copy(tournament, tmp_path, players)
    before = players.battles_started()
    ranking = grown.add(mock(NEWCOMER), prior=3.5).ranking()  # list prior scores are 6 (best) .. 1
    added = [s for s in grown.state.stages if s.name.startswith("add ")]
    assert [s.name for s in added] == [
        f"add {mock(NEWCOMER)} {k}/3" for k in (1, 2, 3)
    ]  # ⌈log2 7⌉ = 3
    assert players.battles_started() - before == 3 * 2
    opponents = [
        next(m for m in (p.model, p.opponent) if m != mock(NEWCOMER))
        for s in added
        for p in s.pairings
    ]
    assert len(set(opponents)) == 3
    # first opponent: its neighbour in the prior order (3.5 sits between scores 4 and 3)
    prior = grown.state.prior_order
    assert prior.index(mock(NEWCOMER)) == 3 and opponents[0] == prior[2]
    assert ranking == [mock(m) for m in TRUTH[:3]] + [mock(NEWCOMER)] + [mock(m) for m in TRUTH[3:]]
    with pytest.raises(ValueError, match="already plays"):
        grown.add(mock(TRUTH[0]))


def test_config_errors_name_the_file_and_key(tmp_path: Path) -> None:
    path = write_config(tmp_path, battles_per_pair="many")
    with pytest.raises(ValueError, match=r"tournament.yaml.battles_per_pair: expected int"):
        load_config(path)
    path = write_config(tmp_path, judges=3)
    with pytest.raises(ValueError, match=r"tournament.yaml: unknown key 'judges'"):
        load_config(path)
    path = write_config(tmp_path, prior={mock(TRUTH[0]): 1.0})
    with pytest.raises(
        ValueError, match=r"tournament.yaml.prior: no prior for mockllm/claude-3-opus"
    ):
        load_config(path)
    path = write_config(tmp_path, prior=str(ARENA_CSV))
    with pytest.raises(ValueError, match="tournament.yaml.prior: no prior for"):
        load_config(path)  # mock names are not Arena names
    path = write_config(tmp_path, task_args={"seed": 3})
    with pytest.raises(ValueError, match="'seed' is set by the tournament"):
        load_config(path)
    path = write_config(tmp_path, questions="missing.jsonl")
    with pytest.raises(FileNotFoundError, match="tournament.yaml.questions: file not found"):
        load_config(path)


def test_a_prior_file_gives_the_initial_order(tmp_path: Path) -> None:
    path = write_config(tmp_path, models=TRUTH[::-1], prior=str(ARENA_CSV))
    config, folder = load_config(path)
    assert config.prior_order() == TRUTH and folder == tmp_path / "tournament"


def test_a_changed_config_does_not_silently_continue(finished, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    tournament, _ = finished
    original = tournament.folder.parent / "tournament.yaml"
    assert (
        Tournament.create(original).state.stages == tournament.state.stages
    )  # same config: resumes
    changed = write_config(
        tmp_path,
        battles_per_pair=3,
        questions=tournament.config.questions,
        folder=str(tournament.folder),
    )
    with pytest.raises(ValueError, match=r"differs from the tournament .* \(battles_per_pair\)"):
        Tournament.create(changed)


def test_example_config_is_valid(tmp_path: Path) -> None:
    example = Path(__file__).resolve().parents[2] / "tasks" / "tournament_example.yaml"
    shutil.copy(example, tmp_path / "example.yaml")
    write_questions(tmp_path, QUESTIONS)
    config, folder = load_config(tmp_path / "example.yaml")
    assert len(config.models) == 7 and config.prior_order()[0] == "google/gemini-2.5-pro"
    assert (
        config.battles_per_pair == 40
        and config.committee_size == 5
        and folder == tmp_path / "tournament"
    )
