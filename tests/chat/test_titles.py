"""Automatic titles (model and derived), queued /title, and clashes becoming #2."""

from __future__ import annotations

from pathlib import Path

import pytest

from hermes_tui.chat import Conversation, Notice, TitleChanged
from hermes_tui.chat.endpoint import Endpoint
from hermes_tui.chat.titles import auto_title, clean_generated, set_title_if_empty
from hermes_tui.config import Config
from hermes_tui.store import Store, TitleInUse, get_session
from hermes_tui.store.titles import derive_title

from ..conftest import SessionMaker
from ..fakemodel import FakeModel, status, text
from .conftest import Recorder


def titled(store: Store, config: Config, home: Path, tmp_path: Path) -> Conversation:
    return Conversation(store, config, home=home, env={}, cwd=tmp_path, auto_title=True)


def test_the_model_titles_the_session_after_the_first_exchange(
    store: Store, config: Config, fake: FakeModel, home: Path, tmp_path: Path, recorder: Recorder
) -> None:
    conversation = titled(store, config, home, tmp_path)
    fake.push(
        text("Lisbon in May is lovely."),
        text(
            "<think>short</think>Title: “Lisbon trip in May”",
            usage={"prompt_tokens": 30, "completion_tokens": 6},
        ),
    )
    conversation.send("Plan a trip to Lisbon in May, please", on_event=recorder)
    assert conversation.join_background(5)
    sid = conversation.session_id
    assert get_session(store, sid).title == "Lisbon trip in May" == conversation.title
    assert [(e.title, e.source) for e in recorder.of(TitleChanged)] == [
        ("Lisbon trip in May", "model")
    ]
    title_request = fake.requests[1]
    assert "tools" not in title_request
    assert "Plan a trip to Lisbon in May" in title_request["messages"][0]["content"]
    with store.read() as conn:
        task = conn.execute(
            "SELECT task, input_tokens FROM session_model_usage WHERE session_id = ? "
            "AND task = 'title_generation'",
            (sid,),
        ).fetchone()
    assert tuple(task) == ("title_generation", 30)


def test_without_a_model_answer_the_title_is_derived(
    store: Store, config: Config, fake: FakeModel, home: Path, tmp_path: Path, recorder: Recorder
) -> None:
    conversation = titled(store, config, home, tmp_path)
    fake.push(text("Sure."), status(400, "no titles today"))
    conversation.send(
        "Refactor the billing module to use Decimal. Then add tests.", on_event=recorder
    )
    conversation.join_background(5)
    expected = derive_title("Refactor the billing module to use Decimal. Then add tests.")
    assert expected == "Refactor the billing module to use Decimal"
    assert get_session(store, conversation.session_id).title == expected
    assert recorder.of(TitleChanged)[0].source == "derived"


def test_a_clash_becomes_number_two(
    store: Store,
    config: Config,
    fake: FakeModel,
    home: Path,
    tmp_path: Path,
    make_session: SessionMaker,
) -> None:
    make_session("telegram", title="Lisbon trip in May", messages=[("user", "earlier")])
    conversation = titled(store, config, home, tmp_path)
    fake.push(text("Again?"), text("Lisbon trip in May"))
    conversation.send("Plan a trip to Lisbon in May")
    conversation.join_background(5)
    assert get_session(store, conversation.session_id).title == "Lisbon trip in May #2"


def test_a_title_is_set_only_while_there_is_none(store: Store, make_session: SessionMaker) -> None:
    sid = make_session("tui", title="Mine", messages=[("user", "x")])
    assert set_title_if_empty(store, sid, "Generated") is None
    assert get_session(store, sid).title == "Mine"


def test_auto_title_leaves_long_sessions_alone(store: Store, make_session: SessionMaker) -> None:
    sid = make_session("cli", messages=[("user", "a"), ("assistant", "b")] * 3)
    assert auto_title(store, sid, None) == (None, "")
    assert get_session(store, sid).title is None
    short = make_session("cli", messages=[("user", "/help"), ("user", "Fix the flaky upload test")])
    assert auto_title(store, short, None) == ("Fix the flaky upload test", "derived")


def test_a_queued_title_is_applied_with_the_first_message(
    store: Store, fake: FakeModel, conversation: Conversation, recorder: Recorder
) -> None:
    assert conversation.set_title("  My  research\u200b project ") == ("My research project", True)
    with store.read() as conn:
        assert conn.execute("SELECT COUNT(*) FROM sessions").fetchone()[0] == 0
    conversation.send("Start with the literature review", on_event=recorder)
    session = get_session(store, conversation.session_id)
    assert session.title == "My research project" and session.message_count == 2
    assert [(e.title, e.source) for e in recorder.of(TitleChanged)] == [
        ("My research project", "queued")
    ]


def test_a_queued_title_taken_meanwhile_does_not_cost_the_message(
    store: Store,
    fake: FakeModel,
    conversation: Conversation,
    recorder: Recorder,
    make_session: SessionMaker,
) -> None:
    conversation.set_title("Shared name")
    make_session("cli", title="Shared name", messages=[("user", "I was quicker")])
    result = conversation.send("hello", on_event=recorder)
    assert result.ok
    assert get_session(store, conversation.session_id).title is None
    assert any("Shared name" in n.text and n.level == "warning" for n in recorder.of(Notice))


def test_a_title_held_elsewhere_is_refused_naming_the_holder(
    store: Store, fake: FakeModel, conversation: Conversation, make_session: SessionMaker
) -> None:
    holder = make_session("cli", title="Taken", messages=[("user", "x")])
    with pytest.raises(TitleInUse, match=holder):
        conversation.set_title("Taken")
    conversation.send("hi")
    with pytest.raises(TitleInUse, match=holder):
        conversation.set_title("Taken")
    assert conversation.set_title("Free") == ("Free", False)
    assert get_session(store, conversation.session_id).title == "Free"


def test_a_user_title_stops_the_automatic_one(
    store: Store, config: Config, fake: FakeModel, home: Path, tmp_path: Path
) -> None:
    conversation = titled(store, config, home, tmp_path)
    conversation.set_title("Chosen")
    conversation.send("anything")
    conversation.join_background(5)
    assert len(fake.requests) == 1  # no title request was made
    assert get_session(store, conversation.session_id).title == "Chosen"


@pytest.mark.parametrize(
    ("raw", "clean"),
    [
        ('"Fix flaky CI tests"', "Fix flaky CI tests"),
        ("Title: Deploy the docs.", "Deploy the docs"),
        (
            "<think>hmm</think>\n\nВосстановление базы данных\nextra line",
            "Восстановление базы данных",
        ),
        ("「京都旅行の計画」", "京都旅行の計画"),
        ("   ", None),
        ("x" * 120, "x" * 77 + "..."),
    ],
)
def test_generated_titles_are_cleaned(raw: str, clean: str | None) -> None:
    assert clean_generated(raw) == clean


def test_the_title_call_uses_its_own_small_request(
    store: Store, fake: FakeModel, make_session: SessionMaker
) -> None:
    sid = make_session(
        "tui", ended=False, messages=[("user", "Tune postgres autovacuum"), ("assistant", "ok")]
    )
    fake.push(text("Postgres autovacuum tuning"))
    endpoint = Endpoint(model="fake/m", base_url=fake.url)
    assert auto_title(store, sid, endpoint) == ("Postgres autovacuum tuning", "model")
    assert fake.requests[0]["max_tokens"] == 40
