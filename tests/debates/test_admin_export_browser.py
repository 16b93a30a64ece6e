"""An analyst filters the debates list in the admin and downloads it as CSV, in real Chromium."""

from __future__ import annotations

import csv
import io

import pytest

from tests.factories import CompletedDebateFactory, StaffFactory


@pytest.mark.django_db(transaction=True)
def test_an_analyst_downloads_the_filtered_debates_as_csv(live_server, page, tmp_path):
    StaffFactory(username="erin", password="a-long-passphrase")
    for i in range(3):
        CompletedDebateFactory(query=f"refused question {i}", decision="REFUSE")
    CompletedDebateFactory(query="=1+1 acted question", decision="ACT")

    page.goto(f"{live_server.url}/admin/login/?next=/admin/debates/debate/")
    page.fill("#id_username", "erin")
    page.fill("#id_password", "a-long-passphrase")
    page.click("input[type=submit]")
    page.goto(f"{live_server.url}/admin/debates/debate/?decision__exact=REFUSE")
    assert "3 debates" in page.locator("#changelist-form").inner_text()

    page.locator("#action-toggle").check()
    page.select_option("select[name=action]", "export_debates_csv")
    with page.expect_download() as download:
        page.click("button[name=index]")
    path = tmp_path / "export.csv"
    download.value.save_as(path)

    assert download.value.suggested_filename.startswith("debates-")
    rows = list(csv.DictReader(io.StringIO(path.read_text(), newline="")))
    assert sorted(r["question"] for r in rows) == [f"refused question {i}" for i in range(3)]
    assert {r["decision"] for r in rows} == {"REFUSE"}
