"""Write-side business logic of profiles, one module per topic; the API, the forms, the CLI and the other apps
call these; the package re-exports the first five topics' public names (profiles.services.profile_create).

- profiles: create, update, edit, delete a profile (every save validates first), the dry run behind
  POST /api/v1/validate/ and ``manage.py lint``
- teams, memberships: teams, their default node type, who is in them with which role
- fixes: a finding's solutions previewed and applied (the dict work is vllmcheck.edits)
- splitting: a mixed profile split into a serving and a training one
- verdicts, rechecks, waivers, alerts: a profile's verdict and history, re-checks of the fleet (the
  dirty-flag fan-out), waivers (a second person), alert e-mails
- previews, matrix, rule_trials: the fleet on another rule set or release, a rule tried on stored profiles
- queue: the one place that hands work to Celery (profiles.tasks)
"""

from .fixes import (
    FixPreview,
    SourceFix,
    profile_apply_fix,
    profile_fix_preview,
    source_apply_fix,
)
from .memberships import (
    team_add_member,
    team_add_member_by_username,
    team_member_update,
)
from .profiles import (
    EDITOR_ROLES,
    EMPTY_WHEN_REPLACED,
    JSON_FIELDS,
    KINDS,
    EditConflict,
    ProfileInput,
    ProfileInvalid,
    input_shape,
    launch_found,
    model_sources_resolve,
    parse_arguments,
    profile_copy,
    profile_create,
    profile_create_by_slug,
    profile_delete,
    profile_dry_run,
    profile_dry_run_found,
    profile_edit,
    profile_model_refresh,
    profile_name_from_model,
    profile_name_suggest,
    profile_render,
    profile_snapshot,
    profile_update,
)
from .splitting import (
    SplitInvalid,
    profile_is_mixed,
    profile_split,
    profile_split_check,
    profile_split_plan,
)
from .teams import (
    SSO_GROUP_MAX,
    team_create,
    team_set_default_node_type,
    team_set_sso_groups,
)

__all__ = [
    "EDITOR_ROLES",
    "EMPTY_WHEN_REPLACED",
    "EditConflict",
    "FixPreview",
    "JSON_FIELDS",
    "KINDS",
    "ProfileInput",
    "ProfileInvalid",
    "SSO_GROUP_MAX",
    "SourceFix",
    "SplitInvalid",
    "input_shape",
    "launch_found",
    "model_sources_resolve",
    "parse_arguments",
    "profile_apply_fix",
    "profile_copy",
    "profile_create",
    "profile_create_by_slug",
    "profile_delete",
    "profile_dry_run",
    "profile_dry_run_found",
    "profile_edit",
    "profile_fix_preview",
    "profile_is_mixed",
    "profile_model_refresh",
    "profile_name_from_model",
    "profile_name_suggest",
    "profile_render",
    "profile_snapshot",
    "profile_split",
    "profile_split_check",
    "profile_split_plan",
    "profile_update",
    "source_apply_fix",
    "team_add_member",
    "team_add_member_by_username",
    "team_create",
    "team_member_update",
    "team_set_default_node_type",
    "team_set_sso_groups",
]
