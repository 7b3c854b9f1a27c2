"""Live chats analysed: per-system statistics and the live overview."""
