"""The benchmark table grades every goal by the measured numbers: no module under bench/
may write a row's result by hand, and `python -m bench` refuses to run while one does."""

import pytest

from bench.common import ROOT, BenchError, hard_coded_goals


def test_no_bench_module_sets_goal_met_to_a_constant():
    assert (ROOT / "bench" / "bench_landers.py").is_file()
    assert hard_coded_goals() == []


@pytest.mark.parametrize(
    "line",
    [
        "row = Result(name='x', title='y', goal_met=True)",
        "row.goal_met = False",
        "row.ratio, row.goal_met = ratio, True",
        "row.goal_met: bool = True",
    ],
)
def test_a_constant_goal_met_is_found(tmp_path, line):
    module = tmp_path / "bench_made_up.py"
    module.write_text(f"def run(ratio, row):\n    {line}\n")
    assert hard_coded_goals([module]) == ["bench_made_up.py:2"]


@pytest.mark.parametrize(
    "line",
    [
        "row = Result(name='x', title='y', goal_met=ratio >= 0.7)",
        "row.goal_met = ratio <= 1.2",
        "row.ratio, row.goal_met = ratio, ratio >= 0.9",
        "row = Result(name='x', title='y', goal_met=None)",
        "met = True",
    ],
)
def test_a_measured_goal_met_is_accepted(tmp_path, line):
    module = tmp_path / "bench_made_up.py"
    module.write_text(f"def run(ratio, row):\n    {line}\n")
    assert hard_coded_goals([module]) == []


def test_the_bench_refuses_to_run_with_a_constant_goal_met(monkeypatch):
    import bench.__main__ as bench_main

    monkeypatch.setattr(bench_main, "hard_coded_goals", lambda: ["bench_made_up.py:2"])
    monkeypatch.setattr(bench_main, "recreate_database", pytest.fail)  # refused before any database work
    with pytest.raises(BenchError, match=r"bench_made_up\.py:2"):
        bench_main.main(["--only", "js"])
