"""Logs on shared storage: runs written by `inspect eval --log-dir s3://...` to a real
S3-compatible server (moto, on 127.0.0.1) rank exactly like the same logs in a local folder."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from inspect_arenahard.cli import main
from tests.helpers.s3 import moto_s3

pytestmark = pytest.mark.shared_data

REPO = Path(__file__).resolve().parents[2]
BUCKET = "evals"
PREFIX = f"s3://{BUCKET}/arenahard"


@pytest.fixture(scope="module")
def s3_logs(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    """A moto S3 server with three runs (one re-run of the same model) and one damaged file."""
    with moto_s3(BUCKET), pytest.MonkeyPatch.context() as patch:
        patch.setenv("INSPECT_CACHE_DIR", str(tmp_path_factory.mktemp("cache")))
        import boto3

        client = boto3.client("s3")
        for quality in (
            "good",
            "good",
            "poor",
        ):  # as if from three machines; the second is a re-run
            cmd = [sys.executable, "-m", "inspect_ai", "eval", "tests/helpers/scripted_task.py", "-T", f"quality={quality}",
                   "--log-dir", PREFIX, "--display", "plain"]  # fmt: skip
            result = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, timeout=300)
            assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
        client.put_object(
            Bucket=BUCKET, Key="arenahard/broken.eval", Body=b"a crashed upload, not a zip archive"
        )
        local = tmp_path_factory.mktemp("local")
        for item in client.list_objects_v2(Bucket=BUCKET)["Contents"]:
            client.download_file(BUCKET, item["Key"], str(local / Path(item["Key"]).name))
        yield local


def test_s3_prefix_ranks_like_the_local_folder(
    s3_logs: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["leaderboard", PREFIX, "--rounds", "10", "--json", str(tmp_path / "s3.json")]) == 0
    remote = capsys.readouterr()
    assert (
        main(
            ["leaderboard", str(s3_logs), "--rounds", "10", "--json", str(tmp_path / "local.json")]
        )
        == 0
    )
    local = capsys.readouterr()
    s3_rows, local_rows = (
        json.loads((tmp_path / f"{n}.json").read_text()) for n in ("s3", "local")
    )
    assert s3_rows == local_rows
    assert {r["model"] for r in s3_rows} == {
        "mockllm/good-model",
        "mockllm/poor-model",
        "gpt-4-0314",
    }

    def table(out: str) -> list[str]:
        return [
            line for line in out.splitlines() if not line.startswith("wrote ")
        ]  # the JSON files differ by name

    assert table(remote.out) == table(local.out)
    # the re-run is de-duplicated and the damaged upload set aside, both named by their s3:// URL
    assert (
        f"superseded: {PREFIX}/" in remote.err
        and f"ignored {PREFIX}/broken.eval: not a readable Inspect log" in remote.err
    )


def test_judges_metrics_costs_and_dataframes_read_s3(s3_logs: Path, tmp_path: Path) -> None:
    from inspect_arenahard.report.costs import log_costs
    from inspect_arenahard.report.dataframes import games_df

    assert main(["judges", PREFIX, "--json", str(tmp_path / "judges.json")]) == 0
    [position] = json.loads((tmp_path / "judges.json").read_text())["position"]
    assert position["n_games"] == 12  # 2 kept runs × 3 prompts × 2 games
    games = games_df(PREFIX)
    assert len(games) == 12 and all(p.startswith(PREFIX) for p in games.log)
    assert games.equals(games_df(s3_logs).assign(log=games.log.to_numpy()))
    costs = log_costs([PREFIX])
    total = costs.total()
    # kept: the re-run (3 answers; its 6 judge games replayed from the cache) and the poor run (3 + 6)
    assert (total.calls, total.cached_calls, len(costs.superseded)) == (12, 6, 1)


def test_report_reads_s3(s3_logs: Path, tmp_path: Path) -> None:
    assert main(["report", PREFIX, "--html", str(tmp_path / "site"), "--rounds", "5"]) == 0
    html = (tmp_path / "site" / "index.html").read_text(encoding="utf-8")
    assert "mockllm/good-model" in html and "mockllm/poor-model" in html
    assert f'<code title="{PREFIX}/' in html  # logs named by their URL, for inspect view
    assert (
        "broken.eval: not a readable Inspect log" in html
    )  # the damaged upload is listed, not hidden


def test_two_eval_sets_into_one_prefix_rank_like_their_local_folders(
    s3_logs: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The many-machines recipe (docs/logs.md): each machine runs `inspect eval-set` into its own
    sub-prefix of one bucket prefix (a second eval-set in the same prefix is refused by Inspect
    unless --log-dir-allow-dirty); the leaderboard over the prefix is the leaderboard over the
    machines' folders, byte for byte, with no note about eval-set bookkeeping."""
    import boto3

    sets = f"s3://{BUCKET}/sets"
    for machine, quality in (("machine-a", "good"), ("machine-b", "poor")):
        cmd = [sys.executable, "-m", "inspect_ai", "eval-set", "tests/helpers/scripted_task.py", "-T",
               f"quality={quality}", "--log-dir", f"{sets}/{machine}", "--display", "plain"]  # fmt: skip
        result = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, timeout=300)
        assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
    client = boto3.client("s3")
    folders = []
    for item in client.list_objects_v2(Bucket=BUCKET, Prefix="sets/")["Contents"]:
        target = tmp_path / "local" / item["Key"]
        target.parent.mkdir(parents=True, exist_ok=True)
        client.download_file(BUCKET, item["Key"], str(target))
        folders.append(str(target.parent))
    assert {Path(f).name for f in folders} == {"machine-a", "machine-b"}
    assert {p.name for p in (tmp_path / "local" / "sets" / "machine-a").iterdir()} >= {
        "eval-set.json",
        "logs.json",
    }
    assert main(["leaderboard", sets, "--rounds", "10", "--json", str(tmp_path / "s3.json")]) == 0
    remote = capsys.readouterr()
    local_args = sorted(set(folders))
    assert (
        main(["leaderboard", *local_args, "--rounds", "10", "--json", str(tmp_path / "local.json")])
        == 0
    )
    local = capsys.readouterr()
    assert (tmp_path / "s3.json").read_bytes() == (tmp_path / "local.json").read_bytes()
    assert "ignored" not in remote.err and "ignored" not in local.err
    assert "games: 12 read from 2 logs, 0 replaced" in remote.err
