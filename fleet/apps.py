from django.apps import AppConfig


class FleetConfig(AppConfig):
    """Pages and API that need both the profiles and the validation domain: releases and their previews,
    rule sets and their trials on the fleet, re-checks and alerts. No models: above profiles, it reads and
    writes through both apps' services and selectors."""

    name = "fleet"
    verbose_name = "Fleet"
