"""The native Ollama chat wire (``ollama-chat``) for agentkit."""
