from django.apps import AppConfig


def agent_protocol_names() -> list[str]:
    """The protocols an agent can take part in: every registered one but a selector (auto)."""
    from protocols import PROTOCOLS

    return [name for name, cls in PROTOCOLS.items() if not getattr(cls, "is_selector", False)]


class DebatesConfig(AppConfig):
    name = "debates"
    verbose_name = "Debates"

    def ready(self):
        """Register what lower layers reach through registries: the debate as a review subject,
        debates as durable work for the sweeper, and the protocols agents may take part in; hand
        the modules that enqueue work the tasks that do it (the task module imports them, so
        they cannot import it); refuse to start with a default protocol that is not registered."""
        from agents import services as agent_services
        from debates import tasks, webhooks
        from debates.default_protocol import check_default_protocol
        from debates.reviewing.subject import DEBATE
        from debates.running import DEBATES
        from protocols import register_offline_responders
        from reviews import subjects
        from runs import lifecycle

        subjects.register(DEBATE)
        lifecycle.register(DEBATES)
        DEBATES.task = tasks.run_debate
        webhooks.delivery_task = tasks.deliver_webhook
        agent_services.set_protocol_names(agent_protocol_names)
        register_offline_responders()
        check_default_protocol()
