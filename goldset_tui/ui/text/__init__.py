"""Text helpers only the screens use: project names, dates, shortening, reflowing."""
