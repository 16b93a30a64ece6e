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
        debates as durable work for the sweeper, and the protocols agents may take part in;
        refuse to start with a default protocol that is not registered."""
        from agents import services as agent_services
        from debates.default_protocol import check_default_protocol
        from debates.reviewing.subject import DEBATE
        from debates.services import DEBATES
        from protocols import register_offline_responders
        from reviews import subjects
        from runs import lifecycle

        subjects.register(DEBATE)
        lifecycle.register(DEBATES)
        agent_services.set_protocol_names(agent_protocol_names)
        register_offline_responders()
        check_default_protocol()
