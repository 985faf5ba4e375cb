def test_the_openapi_schema_documents_the_api(site, client_for):
    response = client_for(site).get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json")
    assert response.status_code == 200
    body = response.content.decode()
    for path in ("/api/settings.php", "/api/user.php", "/api/logout.php", "/api/signup.php"):
        assert path in body
