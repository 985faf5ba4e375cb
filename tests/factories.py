"""factory_boy factories shared by the tests."""

import factory
from django.contrib.auth import get_user_model

from apps.tenants.models import Company


class CompanyFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Company

    name = factory.Sequence(lambda n: f"Company {n} B.V.")
    address = "Keizersgracht 1"
    city = "Amsterdam"
    country = "NL"


class UserFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = get_user_model()
        skip_postgeneration_save = True

    username = factory.Sequence(lambda n: f"member{n}")
    email = factory.LazyAttribute(lambda o: f"{o.username}@example.com")
    password = factory.django.Password("correct horse battery staple")
