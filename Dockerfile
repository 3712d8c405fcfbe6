FROM python:3.11-slim
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1
WORKDIR /app
COPY pyproject.toml README.md ./
COPY config config
COPY profiles profiles
COPY validation validation
COPY fleet fleet
COPY vllmcheck vllmcheck
RUN pip install --no-cache-dir ./vllmcheck .
COPY . .
RUN python manage.py collectstatic --noinput -v0
EXPOSE 8000
CMD ["gunicorn", "config.wsgi", "--bind", "0.0.0.0:8000", "--workers", "3"]
