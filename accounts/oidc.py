"""Single sign-on with OpenID Connect (mozilla-django-oidc), and the switch for the local password form.

The library runs the authorization-code flow: the sign-in view sends the browser to the provider with a fresh
``state``, ``nonce`` and PKCE challenge kept in the session; the callback checks the ``state``, sends the code
(with the client secret) to the token endpoint, verifies the id token's RS256 signature against the provider's
JWKS and its ``nonce``, and reads the claims from the userinfo endpoint. What this module adds: SSO is off
unless configured (``sso_configured``), users are found by e-mail or created, and their team memberships come
from the groups claim through ``accounts.sso_port`` (the business logic is the profiles app's
``profiles.services.memberships.sso_sign_in``, registered there at start-up).
The provider's URLs are settings, never user input (docs/security.md, "Single sign-on").
"""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.backends import ModelBackend
from django.core.exceptions import SuspiciousOperation
from django.http import Http404
from mozilla_django_oidc.auth import OIDCAuthenticationBackend
from mozilla_django_oidc.views import OIDCAuthenticationCallbackView, OIDCAuthenticationRequestView

from .sso_port import sso_groups_apply

_ENDPOINTS = (
    "OIDC_OP_AUTHORIZATION_ENDPOINT",
    "OIDC_OP_TOKEN_ENDPOINT",
    "OIDC_OP_USER_ENDPOINT",
    "OIDC_OP_JWKS_ENDPOINT",
)


def sso_configured() -> bool:
    """SSO is on when the client and every endpoint of the provider are set (README, "Single sign-on")."""
    names = ("OIDC_RP_CLIENT_ID", "OIDC_RP_CLIENT_SECRET", *_ENDPOINTS)
    return all(getattr(settings, name, "") for name in names)


def local_login_allowed(username: str | None) -> bool:
    """The password form: on with ``LOCAL_LOGIN`` (default), else only for the break-glass accounts named in
    ``LOCAL_LOGIN_BREAK_GLASS_USERS``."""
    if settings.LOCAL_LOGIN:
        return True
    return bool(username) and username in settings.LOCAL_LOGIN_BREAK_GLASS_USERS


def _groups(claims: dict) -> list[str]:
    value = claims.get(settings.OIDC_GROUPS_CLAIM) or []
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list | tuple):
        raise SuspiciousOperation(f"the {settings.OIDC_GROUPS_CLAIM!r} claim is not a list of groups")
    return [str(group) for group in value]


class SsoBackend(OIDCAuthenticationBackend):
    """Users by the provider's e-mail claim (an existing user with that e-mail is that user: an open point,
    docs/security.md), created on their first sign-in; team memberships from the groups claim."""

    def authenticate(self, request, **kwargs):
        if not sso_configured():
            return None
        return super().authenticate(request, **kwargs)

    def verify_token(self, token, **kwargs):
        """The library checks the signature (RS256, the JWKS key the token's ``kid`` names), the expiry and
        the nonce; the audience must also be this client."""
        payload = super().verify_token(token, **kwargs)
        audience = payload.get("aud")
        audiences = [audience] if isinstance(audience, str) else list(audience or [])
        if settings.OIDC_RP_CLIENT_ID not in audiences:
            raise SuspiciousOperation("the id token is not for this client (aud)")
        return payload

    def verify_claims(self, claims):
        return bool(claims.get("email")) and claims.get("email_verified", True) is not False

    def create_user(self, claims):
        users = get_user_model().objects
        email = claims["email"].strip()
        base = email[:140]
        username, n = base, 1
        while users.filter(username=username).exists():
            n += 1
            username = f"{base}-{n}"
        user = users.create_user(username, email=email)
        return self.update_user(user, claims)

    def update_user(self, user, claims):
        if not user.is_active:
            return user  # a deactivated account stays out: the callback refuses it
        sso_groups_apply(user=user, groups=_groups(claims))
        return user


class LocalPasswordBackend(ModelBackend):
    """Django's user name and password, refused when ``LOCAL_LOGIN`` is off (break-glass users excepted)."""

    def authenticate(self, request, username=None, password=None, **kwargs):
        if username is None:
            username = kwargs.get(get_user_model().USERNAME_FIELD)
        if not local_login_allowed(username):
            return None
        return super().authenticate(request, username=username, password=password, **kwargs)


class SsoSignInView(OIDCAuthenticationRequestView):
    """``/oidc/authenticate/``: to the provider; a 404 while SSO is not configured."""

    def get(self, request):
        if not sso_configured():
            raise Http404("single sign-on is not configured")
        return super().get(request)


class SsoCallbackView(OIDCAuthenticationCallbackView):
    """``/oidc/callback/``: back from the provider; a 404 while SSO is not configured."""

    def get(self, request):
        if not sso_configured():
            raise Http404("single sign-on is not configured")
        return super().get(request)
