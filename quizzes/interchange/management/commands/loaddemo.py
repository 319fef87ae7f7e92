from pathlib import Path

from django.core.management.base import BaseCommand

from quizzes.interchange.importing import guide_paths_import, quiz_import
from quizzes.interchange.quizfile import quiz_file_read
from quizzes.markup.images import STORAGE_IMAGE_DIR
from quizzes.models import EmbedOrigin

DEMO_DIR = Path(__file__).resolve().parents[3] / "demo"
# The demo's guide page, served on a second port of the loopback, embeds every quiz.
DEMO_EMBED_ORIGINS = ("http://127.0.0.1:8001", "http://localhost:8001")


class Command(BaseCommand):
    help = "Load the demo guide paths and quizzes; running it again updates them in place."

    def handle(self, *args, **options):
        guides_file = DEMO_DIR / "guides.yaml"
        guides = guide_paths_import(data=quiz_file_read(content=guides_file.read_bytes()))
        # The demo's images, as a quiz file's .zip would bring them (quizzes/demo/images/).
        images = {
            f"{STORAGE_IMAGE_DIR}/{path.name}": path.read_bytes()
            for path in sorted((DEMO_DIR / "images").glob("*.png"))
        }
        quizzes = [
            quiz_import(data=quiz_file_read(content=path.read_bytes()), images=images)
            for path in sorted(DEMO_DIR.glob("*.yaml"))
            if path.name != "guides.yaml"
        ]
        for origin in DEMO_EMBED_ORIGINS:
            EmbedOrigin.objects.get_or_create(
                origin=origin, quiz=None, defaults={"note": "The demo's guide page"}
            )
        self.stdout.write(f"Demo content: {len(guides)} guide paths, {len(quizzes)} quizzes.")
