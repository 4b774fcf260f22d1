"""``agentkit chat``: a conversation with an agent in the terminal (see ``docs/chat.md``)."""
