from pathlib import Path

import yaml
from django.core.management.base import BaseCommand

from quizzes.services import guide_paths_import, quiz_import

DEMO_DIR = Path(__file__).resolve().parents[2] / "demo"


class Command(BaseCommand):
    help = "Load the demo guide paths and quizzes; running it again updates them in place."

    def handle(self, *args, **options):
        guides = guide_paths_import(data=_read(DEMO_DIR / "guides.yaml"))
        quizzes = [
            quiz_import(data=_read(path))
            for path in sorted(DEMO_DIR.glob("*.yaml"))
            if path.name != "guides.yaml"
        ]
        self.stdout.write(f"Demo content: {len(guides)} guide paths, {len(quizzes)} quizzes.")


def _read(path: Path) -> dict:
    with path.open(encoding="utf-8") as file:
        return yaml.safe_load(file)
