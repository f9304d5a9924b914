package dev.zklock.docs;

import org.springframework.context.event.EventListener;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

import dev.zklock.LeadershipGrantedEvent;
import dev.zklock.LeadershipRevokedEvent;
import dev.zklock.LockContext;
import dev.zklock.annotation.Leader;

/**
 * The examples of docs/leadership.md.
 */
final class LeadershipSnippets {

	private LeadershipSnippets() {
	}

	@Component
	class OrderPoller {

		@Scheduled(fixedRate = 200)
		@Leader("order-poller")
		public void poll() {
			long token = LockContext.current().fencingToken();
			// ... read the task state, write with the token
		}

	}

	static class Listeners {

		private final Poller poller = new Poller();

		@EventListener
		void lead(LeadershipGrantedEvent event) {
			poller.start(event.getRole(), event.getFencingToken());
		}

		@EventListener
		void stepDown(LeadershipRevokedEvent event) {
			poller.stop(event.getRole());
		}

	}

	@Component
	class Billing {

		@Scheduled(fixedDelay = 1000)
		@Leader(value = "billing", healthGroup = "billing")
		public void bill() {
			LockContext leadership = LockContext.current();
			while (leadership.isHeld() && hasMoreInvoices()) {
				sendNextInvoice(leadership.fencingToken());
			}
		}

		private boolean hasMoreInvoices() {
			return false;
		}

		private void sendNextInvoice(long token) {
		}

	}

	static class Poller {

		void start(String role, long token) {
		}

		void stop(String role) {
		}

	}

}
