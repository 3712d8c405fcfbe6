"""The WSGI application gunicorn serves (``gunicorn config.wsgi``): Django's own handler."""

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

application = get_wsgi_application()
