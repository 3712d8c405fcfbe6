import requests
from django.core.management.base import BaseCommand, CommandError

ENDPOINTS = {
    "OIDC_OP_AUTHORIZATION_ENDPOINT": "authorization_endpoint",
    "OIDC_OP_TOKEN_ENDPOINT": "token_endpoint",  # nosec B105  # a discovery key, not a password
    "OIDC_OP_USER_ENDPOINT": "userinfo_endpoint",
    "OIDC_OP_JWKS_ENDPOINT": "jwks_uri",
}


class Command(BaseCommand):
    help = (
        "Print the OIDC_OP_* settings of single sign-on for an OpenID Connect provider, read from its "
        "discovery document (ISSUER/.well-known/openid-configuration), as lines for the environment. They "
        "stay settings: nothing is fetched while the dashboard runs."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "issuer", help="the provider's issuer URL, e.g. https://idp.example.com/realms/main"
        )
        parser.add_argument("--timeout", type=float, default=10.0, help="seconds (default 10)")

    def handle(self, *args, issuer, timeout, **options):
        issuer = issuer.rstrip("/")
        url = f"{issuer}/.well-known/openid-configuration"
        try:
            response = requests.get(url, timeout=timeout, allow_redirects=False)
            response.raise_for_status()
            document = response.json()
        except (requests.RequestException, ValueError) as exc:
            raise CommandError(f"could not read {url}: {type(exc).__name__}") from None
        if not isinstance(document, dict) or str(document.get("issuer", "")).rstrip("/") != issuer:
            raise CommandError(f"{url} is not the discovery document of {issuer} (its issuer differs)")
        missing = [key for key in ENDPOINTS.values() if not document.get(key)]
        if missing:
            raise CommandError(f"{url} names no {', '.join(missing)}")
        if "RS256" not in document.get("id_token_signing_alg_values_supported", ["RS256"]):
            self.stderr.write("warning: the provider lists no RS256: set OIDC_RP_SIGN_ALGO to its algorithm")
        for setting, key in ENDPOINTS.items():
            self.stdout.write(f"{setting}={document[key]}")
