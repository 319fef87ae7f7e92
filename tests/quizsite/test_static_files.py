"""Production static files: hashed names, compressed copies, served by WhiteNoise."""

from django.core.management import call_command
from django.test import Client

PRODUCTION_STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"},
}


def test_stylesheet_is_served_hashed_compressed_and_cached_for_good(settings, tmp_path, db):
    settings.STATIC_ROOT = tmp_path
    settings.STORAGES = PRODUCTION_STORAGES
    call_command("collectstatic", "--noinput", verbosity=0)

    home = Client().get("/en/").content.decode()
    href = next(part for part in home.split('"') if part.startswith("/static/quizsite/site."))
    assert href != "/static/quizsite/site.css"  # the name carries a hash of the content

    response = Client().get(href, headers={"accept-encoding": "gzip"})
    assert response.status_code == 200
    assert response["Content-Encoding"] == "gzip"
    assert "immutable" in response["Cache-Control"]
    assert list((tmp_path / "quizsite").glob("site.*.css.gz"))
