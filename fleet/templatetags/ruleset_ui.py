"""The rule-set page's collapsed rows, written without a template per row.

A rule set has hundreds of rules (335 in the built-in pack) and the page lists every one of them collapsed
(its body loads when the row opens): through the template language, the variables of 335 rows were most of
the page's time. Every value is escaped as the template escaped it (html.escape, which Django's escape calls);
the markup is the template's, byte for byte.
"""

from __future__ import annotations

from html import escape

from django import template
from django.utils.safestring import mark_safe

from vllmcheck.engine.missing import template_in_words

register = template.Library()

ROW = (
    '\n<details class="rule{disabled_class}" id="rule-{id}" hx-get="{body}" hx-trigger="toggle once"'
    ' hx-target="find .rule-body">\n'
    "  <summary>\n"
    '    <code class="rule-id">{id}</code>\n'
    '    <span class="badge sev-{severity}">{severity}</span>\n'
    '    <span class="badge">{category}</span>\n'
    "    {disabled_badge}\n"
    '    <span class="rule-versions">{versions}</span>\n'
    '    <span class="rule-message">{message}</span>\n'
    "  </summary>\n"
    '  <div class="rule-body"><p class="muted"><a href="{body}">Open {id}</a></p></div>\n'
    "</details>\n"
)


@register.simple_tag
def collapsed_rule_rows(rules, ruleset_url: str) -> str:
    """One collapsed ``<details>`` per rule: its summary, and a link to its body (loaded on open)."""

    def esc(value) -> str:  # django.utils.html.escape's text, without its lazy-string wrapper per call
        return escape(str(value))

    rows = []
    for rule in rules:
        rule_id = esc(rule.rule_id)
        rows.append(
            ROW.format(
                id=rule_id,
                body=f"{esc(ruleset_url)}rules/{rule_id}/body/",
                disabled_class="" if rule.enabled else " is-disabled",
                severity=esc(rule.severity),
                category=esc(rule.category),
                disabled_badge="" if rule.enabled else '<span class="badge disabled">disabled</span>',
                versions=esc(rule.versions or "all releases"),
                message=esc(rule.title or template_in_words(rule.message)),
            )
        )
    return mark_safe("".join(rows))  # nosec B308 B703  # every value in them is escaped above
