package dev.zklock.docs;

import org.springframework.scheduling.annotation.Scheduled;

import dev.zklock.annotation.DistributedLock;
import dev.zklock.annotation.OnTimeout;

/**
 * The minimum-hold example of docs/annotation-and-template.md.
 */
class MinHoldSnippets {

	private final Reminders reminders = new Reminders();

	@Scheduled(fixedRate = 60_000)
	@DistributedLock(timeout = "0", onTimeout = OnTimeout.SKIP, minHold = "50s")
	public void sendReminders() {
		this.reminders.sendDue();
	}

	static class Reminders {

		void sendDue() {
		}

	}

}
