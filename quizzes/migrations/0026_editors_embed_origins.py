from django.apps import apps as global_apps
from django.contrib.auth.management import create_permissions
from django.db import migrations

EMBED_ORIGIN_PERMISSIONS = [
    "add_embedorigin",
    "change_embedorigin",
    "delete_embedorigin",
    "view_embedorigin",
]


def editors_list_embed_origins(apps, schema_editor):
    """Editors list the sites allowed to embed quizzes (the roles of 0003_roles)."""
    create_permissions(global_apps.get_app_config("quizzes"), apps=apps, verbosity=0)
    Group = apps.get_model("auth", "Group")
    Permission = apps.get_model("auth", "Permission")
    editors = Group.objects.filter(name="Editors").first()
    if editors is not None:
        editors.permissions.add(
            *Permission.objects.filter(
                content_type__app_label="quizzes", codename__in=EMBED_ORIGIN_PERMISSIONS
            )
        )


def editors_drop_embed_origins(apps, schema_editor):
    Group = apps.get_model("auth", "Group")
    Permission = apps.get_model("auth", "Permission")
    editors = Group.objects.filter(name="Editors").first()
    if editors is not None:
        editors.permissions.remove(
            *Permission.objects.filter(
                content_type__app_label="quizzes", codename__in=EMBED_ORIGIN_PERMISSIONS
            )
        )


class Migration(migrations.Migration):
    dependencies = [
        ("quizzes", "0025_embed_origins"),
        ("auth", "0012_alter_user_first_name_max_length"),
        ("contenttypes", "0002_remove_content_type_name"),
    ]

    operations = [migrations.RunPython(editors_list_embed_origins, editors_drop_embed_origins)]
