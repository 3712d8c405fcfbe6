"""Names vulture (`make lint`, configured in pyproject.toml) counts as used: each is read by a framework, a
template, the database or a test, not by the product's Python code. Never imported or run. A new finding is
dead code to delete, unless it is one of these kinds: then `.venv/bin/vulture --make-whitelist` prints its
line to add under the section it belongs to."""

# Classes and objects named by a dotted path: INSTALLED_APPS' app configs, MIDDLEWARE, REST_FRAMEWORK's
# authentication, pagination, negotiation and throttle classes, drf-spectacular's extension, gunicorn's worker
# class (gunicorn.conf.py), the WSGI application.
AccountsConfig  # unused class (accounts/apps.py:4)
ApiTokenAuthentication  # unused class (accounts/authentication.py:22)
AuditOriginMiddleware  # unused class (accounts/middleware.py:16)
ApiTokenScheme  # unused class (accounts/schema.py:8)
Pagination  # unused class (config/api.py:32)
RequestBodyLimitMiddleware  # unused class (config/middleware.py:26)
LazyMessageMiddleware  # unused class (config/middleware.py:61)
ContentNegotiation  # unused class (config/negotiation.py:12)
ClientRateThrottle  # unused class (config/throttling.py:88)
AnonRateThrottle  # unused class (config/throttling.py:103)
LingeringThreadWorker  # unused class (config/web_worker.py:98)
application  # unused variable (config/wsgi.py:37)
FleetConfig  # unused class (fleet/apps.py:4)
HubConfig  # unused class (hub/apps.py:4)
ProfilesConfig  # unused class (profiles/apps.py:4)
SourcesConfig  # unused class (sources/apps.py:4)
ValidationConfig  # unused class (validation/apps.py:12)

# Arguments and attributes a framework or library defines: a signal's `sender`, drf-spectacular's
# `auto_schema`, prometheus' `collect`, the request attributes Django and django-csp read, Django's
# `_state.adding`, huggingface_hub's `constants.HF_HUB_OFFLINE`, and per-class caches read back through
# `cls.__dict__` (`_direct`, `_prebuilt_fields`).
auto_schema  # unused variable (accounts/schema.py:12)
_.collect  # unused method (config/metrics.py:26)
_.csp_nonce  # unused attribute (config/middleware.py:142)
_.resolver_match  # unused attribute (config/wsgi.py:32)
_._direct  # unused attribute (profiles/api/serializers.py:189)
_.adding  # unused attribute (profiles/inserts.py:309)
_._prebuilt_fields  # unused attribute (validation/api/http.py:108)
sender  # unused variable (validation/apps.py:5)
_.HF_HUB_OFFLINE  # unused attribute (vllmcheck/modelhub.py:561)

# Model fields and choices: the ORM, the admin, the API's serializers, templates and the database read them.
VIEWER  # unused variable (accounts/permissions.py:26)
PAGE  # unused variable (accounts/models.py:44)
API  # unused variable (accounts/models.py:45)
WORKER  # unused variable (accounts/models.py:47)
COMMAND  # unused variable (accounts/models.py:48)
SYSTEM  # unused variable (accounts/models.py:49)
uploaded_by  # unused variable (hub/models.py:47)
SERVING  # unused variable (profiles/models.py:47)
COLLECTION  # unused variable (profiles/models.py:48)
SSH_KEY  # unused variable (sources/models.py:15)
created_by  # unused variable (sources/models.py:31)
owner_notified_at  # unused variable (sources/models.py:83)
last_synced_at  # unused variable (sources/models.py:85)
last_errors  # unused variable (sources/models.py:86)
_.owner_notified_at  # unused attribute (sources/services.py:190)
_.owner_notified_at  # unused attribute (sources/services.py:395)
patch  # unused variable (validation/models.py:15)
argument_count  # unused variable (validation/models.py:19)
imported_at  # unused variable (validation/models.py:21)
updated_by  # unused variable (validation/models.py:48)
created_by  # unused variable (validation/models.py:79)
published_at  # unused variable (validation/models.py:84)
published_by  # unused variable (validation/models.py:85)
VLLM  # unused variable (validation/models.py:98)
POLICY  # unused variable (validation/models.py:99)
CATALOG  # unused variable (validation/models.py:100)
WARNING  # unused variable (validation/models.py:104)
INFO  # unused variable (validation/models.py:105)
tips  # unused variable (validation/models.py:125)
error_class  # unused variable (validation/models.py:130)
VALID  # unused variable (validation/models.py:163)
WARNING  # unused variable (validation/models.py:164)
INVALID  # unused variable (validation/models.py:165)
profile_revision  # unused variable (validation/models.py:182)
release_catalog_sha256  # unused variable (validation/models.py:202)
computed_at  # unused variable (validation/models.py:203)
pending_recheck_id  # unused variable (validation/models.py:207)
release_catalog_sha256  # unused variable (validation/models.py:228)
computed_at  # unused variable (validation/models.py:229)
pending_recheck  # unused variable (validation/models.py:230)
CREATED  # unused variable (validation/models.py:265)
RULESET  # unused variable (validation/models.py:267)
RELEASE  # unused variable (validation/models.py:268)
WAIVER  # unused variable (validation/models.py:269)
SWEEP  # unused variable (validation/models.py:270)
MANUAL  # unused variable (validation/models.py:271)
profile_revision  # unused variable (validation/models.py:283)
granted_at  # unused variable (validation/models.py:310)
expiry_applied  # unused variable (validation/models.py:314)
created_by  # unused variable (validation/models.py:343)
heartbeat_at  # unused variable (validation/models.py:347)
last_error  # unused variable (validation/models.py:376)
claimed_at  # unused variable (validation/models.py:378)
sent_at  # unused variable (validation/models.py:379)
_.updated_by  # unused attribute (validation/services/fleet.py:32)
_.argument_count  # unused attribute (validation/services/releases.py:52)
_.imported_at  # unused attribute (validation/services/releases.py:54)
_.published_at  # unused attribute (validation/services/rulesets.py:64)
_.published_by  # unused attribute (validation/services/rulesets.py:65)
_.published_at  # unused attribute (validation/services/rulesets.py:311)
_.published_by  # unused attribute (validation/services/rulesets.py:312)
_.profile_revision  # unused attribute (validation/services/verdicts.py:476)
_.granted_at  # unused attribute (validation/services/waivers.py:126)
_.expiry_applied  # unused attribute (validation/services/waivers.py:143)

# Declared serializer, form and filter fields: DRF, Django forms and django-filter read a class's declared
# fields, never by attribute.
since  # unused variable (accounts/api.py:119)
until  # unused variable (accounts/api.py:120)
since  # unused variable (accounts/forms.py:24)
until  # unused variable (accounts/forms.py:25)
uploaded_by  # unused variable (hub/api.py:16)
config_text  # unused variable (hub/forms.py:11)
config_file  # unused variable (hub/forms.py:16)
message_source  # unused variable (profiles/api/serializers.py:33)
message_rendered  # unused variable (profiles/api/serializers.py:34)
message_note  # unused variable (profiles/api/serializers.py:35)
effective_vllm_version  # unused variable (profiles/api/serializers.py:331)
model_config_text  # unused variable (profiles/forms.py:69)
model_config_file  # unused variable (profiles/forms.py:76)
created_by  # unused variable (sources/api/views.py:87)
used_by  # unused variable (sources/api/views.py:88)
queued  # unused variable (sources/api/views.py:117)
profile_name  # unused variable (validation/api/alerts.py:17)
records  # unused variable (validation/api/rulesets.py:47)
has_catalog  # unused variable (validation/api/serializers.py:11)
is_fleet_default  # unused variable (validation/api/serializers.py:12)
to  # unused variable (validation/api/serializers.py:30)
stale_rules  # unused variable (validation/api/serializers.py:52)
is_current  # unused variable (validation/api/serializers.py:90)
tips  # unused variable (validation/forms.py:93)
records  # unused variable (validation/forms.py:155)

# Values only templates read (attributes set on objects for a page, a preview's counts).
_.can_approve  # unused attribute (profiles/views.py:226)
_.can_revoke  # unused attribute (profiles/views.py:227)
_.my_role  # unused attribute (profiles/views.py:666)
would_become_invalid  # unused variable (validation/services/release_watch.py:47)
findings_change  # unused variable (validation/services/release_watch.py:48)

# vllmcheck: fields of a catalog's argument (loaded from its JSON) and of a finding (read through
# dataclasses.asdict, the JSON it becomes), and helpers only the tests call (the brute-force reference
# `nearest` is checked against; the Hub's reachability reset between tests).
_.nearest_brute_force  # unused method (vllmcheck/engine/checks.py:178)
negatable  # unused variable (vllmcheck/engine/types.py:79)
message_source  # unused variable (vllmcheck/engine/types.py:139)
message_rendered  # unused variable (vllmcheck/engine/types.py:142)
message_note  # unused variable (vllmcheck/engine/types.py:143)
forget_unreachable  # unused function (vllmcheck/modelhub.py:525)

# Written but never read: left to their owners (reported), not deleted here. `model_tag_tok` is in
# vllmcheck/engine/parse.py, which another change is rewriting; `factory_default` is a field of the catalog
# builder's Origin record that field_default() fills and nothing reads.
factory_default  # unused variable (vllmcheck/catalog_builder/kwargs.py:69)
_.model_tag_tok  # unused attribute (vllmcheck/engine/parse.py:225)
_.model_tag_tok  # unused attribute (vllmcheck/engine/parse.py:300)
_.model_tag_tok  # unused attribute (vllmcheck/engine/parse.py:302)
_.model_tag_tok  # unused attribute (vllmcheck/engine/parse.py:494)

# Framework signatures: DRF's Parser.parse(stream, media_type, parser_context), Django's post_migrate
# receivers (sender, using, ...).
media_type  # unused variable (config/parsers.py:45)
using  # unused variable (validation/apps.py:5)

# Django models and forms: fields read by the ORM, templates and the API (never by name in Python).
NotificationsConfig  # unused class (notifications/apps.py:4)
url_masked  # unused variable (notifications/models.py:23)
event_key  # unused variable (notifications/models.py:57)
last_status  # unused variable (notifications/models.py:63)
mailed_to  # unused variable (notifications/models.py:85)
mail_error  # unused variable (notifications/models.py:86)
parse_notes  # unused variable (profiles/models.py:78)
poll  # unused variable (validation/api/serializers.py:154)
_.short_fields  # unused method (validation/forms.py:135): the rule editor's template
_.more_has_errors  # unused method (validation/forms.py:141): the rule editor's template
try_profile  # unused variable (validation/forms.py:165): a form field
try_command  # unused variable (validation/forms.py:166): a form field
try_kind  # unused variable (validation/forms.py:172): a form field
release_terms  # unused variable (vllmcheck/engine/memory.py:586): a field of the memory estimate's JSON
RULE_PACK_FIRST_RELEASE  # unused variable (vllmcheck/__init__.py:17): read by tools/rulepack and the tests
weights_source  # unused variable (vllmcheck/engine/memory.py:623): a field of the memory estimate's JSON
INDEX  # unused variable (hub/models.py:21): a choice of ModelConfig.weights_basis (the database, the API)
HEADER  # unused variable (hub/models.py:22): idem
SHAPES  # unused variable (hub/models.py:23): idem
index_file  # unused variable (hub/forms.py:17): a form field (the Models page's upload)
safetensors_index  # unused variable (hub/api.py:78): a declared serializer field (the API's upload)

# Single sign-on: named by dotted path in settings (AUTHENTICATION_BACKENDS, OIDC_AUTHENTICATE_CLASS,
# OIDC_CALLBACK_CLASS); verify_claims is mozilla-django-oidc's hook.
SsoBackend  # unused class (accounts/oidc.py)
LocalPasswordBackend  # unused class (accounts/oidc.py)
SsoSignInView  # unused class (accounts/oidc.py)
SsoCallbackView  # unused class (accounts/oidc.py)
_.verify_claims  # unused method (accounts/oidc.py): mozilla-django-oidc's claims check
message_detail  # unused variable (vllmcheck/engine/types.py): a field of the findings JSON (checks' _finding)
