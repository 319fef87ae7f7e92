from django.apps import apps as global_apps
from django.contrib.auth.management import create_permissions
from django.db import migrations

EDITOR_MODELS = {"guides": ["guidepath"], "quizzes": ["quiz", "question", "choice"]}
EDITOR_ACTIONS = ["add", "change", "delete", "view"]
INSTRUCTOR_PERMISSIONS = {
    "quizzes": ["view_report", "view_quiz", "view_attempt", "view_answer"],
}


def _permissions(apps, codenames_by_app):
    Permission = apps.get_model("auth", "Permission")
    return [
        Permission.objects.get(content_type__app_label=app, codename=codename)
        for app, codenames in codenames_by_app.items()
        for codename in codenames
    ]


def create_roles(apps, schema_editor):
    # Permissions are normally made after migrations (post_migrate); the groups need them now.
    for label in ["guides", "quizzes"]:
        create_permissions(global_apps.get_app_config(label), apps=apps, verbosity=0)
    Group = apps.get_model("auth", "Group")
    editors, _created = Group.objects.get_or_create(name="Editors")
    editors.permissions.set(
        _permissions(
            apps,
            {
                app: [f"{action}_{model}" for model in models for action in EDITOR_ACTIONS]
                for app, models in EDITOR_MODELS.items()
            },
        )
    )
    instructors, _created = Group.objects.get_or_create(name="Instructors")
    instructors.permissions.set(_permissions(apps, INSTRUCTOR_PERMISSIONS))


def remove_roles(apps, schema_editor):
    apps.get_model("auth", "Group").objects.filter(name__in=["Editors", "Instructors"]).delete()


class Migration(migrations.Migration):

    dependencies = [
        ("quizzes", "0002_report_permission"),
        ("guides", "0001_initial"),
        ("auth", "0012_alter_user_first_name_max_length"),
        ("contenttypes", "0002_remove_content_type_name"),
    ]

    operations = [migrations.RunPython(create_roles, remove_roles)]
