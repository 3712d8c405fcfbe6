"""The team page's notification section (``{% team_notifications team %}``): rendered by this app, so that the
team page (profiles) needs no import of it."""

from django import template

from accounts import permissions

from .. import selectors, services
from ..models import NotificationTarget

register = template.Library()


@register.inclusion_tag("notifications/_team_targets.html", takes_context=True)
def team_notifications(context, team):
    user = context["request"].user
    can_manage = permissions.can_manage_notification_targets(user, team)
    return {
        "request": context["request"],
        "csrf_token": context.get("csrf_token"),
        "team": team,
        "can_manage": can_manage,
        "targets": list(selectors.targets_of(team)) if can_manage else [],
        "deliveries": list(selectors.deliveries_of(team)) if can_manage else [],
        "kinds": NotificationTarget.Kind.choices,
        "transitions": services.TRANSITIONS,
    }
