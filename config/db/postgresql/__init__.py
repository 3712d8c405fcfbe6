"""Django's PostgreSQL backend, with the connection health check folded into the request's first statement."""
