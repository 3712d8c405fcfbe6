"""vllmcheck.edits: a finding's fix applied to engine arguments, the solutions that can be applied, diffs."""

from vllmcheck.edits import engine_args_apply_fix, finding_fix_options, mapping_diff, snapshot_diff


def test_apply_fix_handles_dotted_keys():
    args = {"profiler_config": {"profiler": "torch", "dir": "/tmp"}, "enforce_eager": True}
    fixed = engine_args_apply_fix(args, {"unset": ["profiler_config.profiler"], "set": {"a.b": 1}})
    assert fixed == {"profiler_config": {"dir": "/tmp"}, "enforce_eager": True, "a": {"b": 1}}
    assert engine_args_apply_fix({"x": {"y": 1}}, {"unset": ["x.y"]}) == {}
    assert args["profiler_config"]["profiler"] == "torch"  # the input is not changed


def test_an_unset_of_a_key_that_is_not_there_changes_nothing():
    args = {"x": 1, "cfg": {"a": 1}}
    assert engine_args_apply_fix(args, {"unset": ["y", "cfg.b", "x.z"]}) == args


def test_mapping_diff_names_each_key_added_removed_or_changed_in_key_order():
    assert mapping_diff({"b": 1, "a": 1, "same": 0}, {"a": 2, "c": 3, "same": 0}) == [
        {"key": "a", "change": "changed", "before": 1, "after": 2},
        {"key": "b", "change": "removed", "before": 1, "after": None},
        {"key": "c", "change": "added", "before": None, "after": 3},
    ]


def test_snapshot_diff_goes_into_the_arguments_and_names_them_args():
    before = {"name": "a", "engine_args": {"tp": 1}, "env": {}, "description": ""}
    after = {"name": "b", "engine_args": {"tp": 2}, "env": {"X": "1"}, "description": "new"}
    assert snapshot_diff(before, after) == [
        {"key": "description", "change": "added", "before": "", "after": "new"},
        {"key": "args.tp", "change": "changed", "before": 1, "after": 2},
        {"key": "env.X", "change": "added", "before": None, "after": "1"},
        {"key": "name", "change": "changed", "before": "a", "after": "b"},
    ]


def test_a_solution_that_says_its_change_gets_it_and_an_unnamed_rule_fix_comes_first():
    finding = {
        "solutions": [
            "Set max_model_len to 4096",
            "Remove --enforce-eager or lower the batch",
            "Ask the team",
        ],
        "fix": {"unset": ["speculative_config"]},
    }
    options = finding_fix_options(finding, {"enforce_eager": True, "speculative_config": {"n": 3}})
    assert [(o.index, o.text, o.fix) for o in options] == [
        (0, "The rule's fix: remove speculative_config", {"unset": ["speculative_config"]}),
        (1, "Set max_model_len to 4096", {"set": {"max_model_len": 4096}}),
        (2, "Remove --enforce-eager or lower the batch", {"unset": ["enforce_eager"]}),
        (3, "Ask the team", None),
    ]


def test_the_rule_fix_goes_to_the_solution_that_names_what_it_changes():
    finding = {
        "solutions": ["Ask the team", "Drop speculative_config"],
        "fix": {"unset": ["speculative_config"]},
    }
    options = finding_fix_options(finding, {})  # the text alone would unset nothing the profile gives
    assert [(o.index, o.fix) for o in options] == [(0, None), (1, {"unset": ["speculative_config"]})]


def test_no_option_when_nothing_can_be_applied():
    assert finding_fix_options({"solutions": ["Ask the team", "Use x=1"]}, {}) == []
