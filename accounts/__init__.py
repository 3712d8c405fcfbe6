"""Who may do what (permissions), who is who (API tokens) and who did what (the audit log).

The lowest layer of the apps: every other app's services, pages, API and admin ask it, and it imports none
of them (team memberships are read through the user's reverse relation ``memberships``).
"""
