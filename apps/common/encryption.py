"""Keys of outside services kept in the database (a site's Mollie API key, its push
private key), encrypted at rest.

Fernet (AES-128-CBC with HMAC-SHA256, from `cryptography`) under the deployment's keys,
settings.SECRETS_KEYS: the first key encrypts, every key decrypts (MultiFernet). A new key
goes first, `manage.py secrets_rotate` re-encrypts every stored value with it, and only
then is the old key dropped. A copy of the database (a backup, a replica, a support dump)
therefore holds no key that works without the environment of the processes.

`EncryptedCharField` is the model field for such a key: in Python the value is the clear
text, validated like a CharField (its max_length is the clear text's); the column is
`text` and holds the Fernet token. An empty value stays empty: whether a key is stored
is no secret (the admin says so). Lookups other than on the empty value cannot match,
since every token has its own random IV."""

import functools
import logging
from collections.abc import Iterator

from cryptography.fernet import Fernet, InvalidToken, MultiFernet
from django.conf import settings
from django.core import checks
from django.core.exceptions import ImproperlyConfigured, ValidationError
from django.db import models
from django.db.models import Value
from django.db.models.functions import Cast
from django.utils.translation import gettext_lazy as _

logger = logging.getLogger(__name__)

# Every Fernet token starts so (version byte 0x80 and a timestamp below 2**32) until 2106.
TOKEN_PREFIX = "gAAAAA"


class SecretUnreadable(ImproperlyConfigured):
    """A stored token none of SECRETS_KEYS opens: the key that encrypted it was dropped
    before `secrets_rotate` ran, or the database came from another deployment."""


@functools.lru_cache(maxsize=4)
def _fernet(keys: tuple[str, ...]) -> MultiFernet:
    if not keys:
        raise ImproperlyConfigured("SECRETS_KEYS is empty: stored keys cannot be encrypted.")
    try:
        return MultiFernet([Fernet(key) for key in keys])
    except ValueError as error:
        raise ImproperlyConfigured("Each of SECRETS_KEYS must be a Fernet key (32 bytes, url-safe base64).") from error


def fernet() -> MultiFernet:
    """The deployment's keys; built once per list of keys (tests may override the setting)."""
    return _fernet(tuple(settings.SECRETS_KEYS))


def is_token(value: str) -> bool:
    return value.startswith(TOKEN_PREFIX)


def secret_encrypt(text: str) -> str:
    """The token of a clear text under the first key; "" stays ""."""
    if not text:
        return ""
    return fernet().encrypt(text.encode()).decode("ascii")


def secret_decrypt(stored: str) -> str:
    """The clear text of a stored value. A value written in clear (before the column was
    encrypted, or by a process of the previous release during a deploy) is returned as it
    is and encrypted by the next save or `secrets_rotate`."""
    if not stored:
        return ""
    if not is_token(stored):
        logger.warning("a stored key is not encrypted yet; manage.py secrets_rotate encrypts it")
        return stored
    try:
        return fernet().decrypt(stored.encode("ascii")).decode()
    except (InvalidToken, UnicodeError) as error:
        raise SecretUnreadable(
            "A stored key cannot be decrypted with SECRETS_KEYS: keep the key that encrypted it in "
            "the list until manage.py secrets_rotate has run."
        ) from error


def secret_rotate(stored: str) -> str:
    """The stored value re-encrypted with the first key (a clear one encrypted)."""
    if not stored:
        return ""
    if not is_token(stored):
        return secret_encrypt(stored)
    try:
        return fernet().rotate(stored.encode("ascii")).decode("ascii")
    except (InvalidToken, UnicodeError) as error:
        raise SecretUnreadable("A stored key cannot be decrypted with SECRETS_KEYS.") from error


class EncryptedCharField(models.CharField):
    """A key of an outside service, encrypted at rest (see the module). Every such field is
    found by `secrets_rotate`; the operators' admin must take it write-only."""

    def get_internal_type(self) -> str:
        # The token is longer than the clear text (about 4/3 of it plus 76 characters).
        return "TextField"

    def from_db_value(self, value, expression, connection):
        return value if value is None else secret_decrypt(value)

    def get_prep_value(self, value):
        value = super().get_prep_value(value)
        return secret_encrypt(value) if value else value

    def value_to_string(self, obj) -> str:
        """What `dumpdata` and every serializer write: the token, never the clear key (a
        fixture or a backup made that way holds no more than the database does)."""
        return secret_encrypt(self.value_from_object(obj) or "")

    def to_python(self, value):
        """A token (from a serialized copy, `loaddata`) is read back to its clear text."""
        value = super().to_python(value)
        if not value or not is_token(value):
            return value
        try:
            return secret_decrypt(value)
        except SecretUnreadable:
            # An operator pasting a token (from another deployment's dump) into the admin
            # gets the field's error, not a server error.
            raise ValidationError(
                _("This is an encrypted key this site cannot read. Enter the key itself."), code="unreadable"
            ) from None


def encrypted_fields(model) -> list[EncryptedCharField]:
    return [field for field in model._meta.concrete_fields if isinstance(field, EncryptedCharField)]


@checks.register(checks.Tags.security)
def secrets_keys_check(app_configs=None, **kwargs) -> list[checks.CheckMessage]:
    """SECRETS_KEYS is a non-empty list of Fernet keys."""
    try:
        fernet()
    except ImproperlyConfigured as error:
        return [checks.Error(str(error), hint="Fernet.generate_key() makes a key.", id="encryption.E001")]
    return []


def stored_values(queryset) -> Iterator[tuple[object, dict[str, str]]]:
    """(pk, {field name: stored value}) of every row of the queryset with a value in one of
    its model's encrypted fields, the values as the column holds them (tokens, or text in
    clear not encrypted yet): for `secrets_rotate`, the migration, and tests that look at
    the column."""
    names = [field.name for field in encrypted_fields(queryset.model)]
    raw = {f"_stored_{name}": Cast(name, output_field=models.TextField()) for name in names}
    for row in queryset.annotate(**raw).values("pk", *raw).iterator():
        values = {name: row[f"_stored_{name}"] or "" for name in names}
        if any(values.values()):
            yield row["pk"], values


def stored_values_write(model, pk, values: dict[str, str]) -> None:
    """Writes values as they are to be stored (tokens), past the fields' encryption."""
    model._base_manager.filter(pk=pk).update(
        **{name: Value(value, output_field=models.TextField()) for name, value in values.items()}
    )
