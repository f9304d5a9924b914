package dev.zklock.core;

import java.util.ArrayList;
import java.util.List;
import java.util.PriorityQueue;

import org.junit.jupiter.api.Test;

import dev.zklock.core.RevocationWatch.Due;
import dev.zklock.core.RevocationWatch.DueQueue;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The {@link RevocationWatch}'s queue of holds waiting for their watch, on hand-set
 * times: a hold that falls due before one queued ahead of it is still taken at its
 * own time, and an offer between the sweep's look and its take loses no hold.
 */
class RevocationWatchDueQueueTests {

	@Test
	void aHoldDueBeforeOneQueuedAheadOfItIsTakenAtItsOwnTime() {
		DueQueue<String> queue = new DueQueue<>();
		queue.offer("granted-late", 1_000);
		queue.offer("handed-over-late", 100);
		queue.offer("next", 1_050);
		assertThat(queue.first()).as("the sweep is timed for the hold due first")
			.extracting(Due::nanos)
			.isEqualTo(100L);
		List<String> taken = new ArrayList<>();
		assertThat(queue.takeDue(500, taken::add)).isEqualTo(1);
		assertThat(taken).containsExactly("handed-over-late");
		assertThat(queue.first()).extracting(Due::nanos).isEqualTo(1_000L);
		assertThat(queue.takeDue(1_050, taken::add)).isEqualTo(2);
		assertThat(taken).containsExactly("handed-over-late", "granted-late", "next");
		assertThat(queue.first()).isNull();
	}

	@Test
	void holdsOfferedInAnyOrderAreEachTakenOnceByTheirTime() {
		DueQueue<Integer> queue = new DueQueue<>();
		int[] nanos = { 500, 100, 900, 300, 700, 200, 1_000, 50 };
		for (int i = 0; i < nanos.length; i++) {
			queue.offer(i, nanos[i]);
		}
		List<Integer> taken = new ArrayList<>();
		for (long now = 0; now <= 1_000; now += 50) {
			long until = now;
			queue.takeDue(now, (item) -> {
				assertThat((long) nanos[item]).as("taken no sooner than due").isLessThanOrEqualTo(until);
				assertThat((long) nanos[item]).as("taken in the sweep of its time").isGreaterThan(until - 50);
				taken.add(item);
			});
		}
		assertThat(taken).containsExactlyInAnyOrder(0, 1, 2, 3, 4, 5, 6, 7);
	}

	@Test
	void aHoldDueSoonerOfferedBetweenTheSweepsLookAndItsTakeIsNotLost() {
		// another thread's offer lands right after the sweep peeked at the head: the poll then returns it
		OfferAfterPeek outOfOrder = new OfferAfterPeek(new Due<>("offered-meanwhile", 10));
		DueQueue<String> queue = new DueQueue<>(outOfOrder);
		queue.offer("in-order", 1_000);
		queue.offerOutOfOrder("retry", 20);
		List<String> taken = new ArrayList<>();
		int count = queue.takeDue(50, taken::add);
		assertThat(outOfOrder.offered).as("the offer came between the look and the take").isTrue();
		assertThat(taken).containsExactlyInAnyOrder("retry", "offered-meanwhile");
		assertThat(count).isEqualTo(2);
		assertThat(queue.first()).extracting(Due::item).isEqualTo("in-order");
	}

	// A priority queue that, once, takes an offer just after a peek found a head, as a concurrent offer can
	private static final class OfferAfterPeek extends PriorityQueue<Due<String>> {

		private final Due<String> meanwhile;

		private boolean offered;

		OfferAfterPeek(Due<String> meanwhile) {
			super((one, other) -> Long.signum(one.nanos() - other.nanos()));
			this.meanwhile = meanwhile;
		}

		@Override
		public Due<String> peek() {
			Due<String> head = super.peek();
			if (head != null && !this.offered) {
				this.offered = true;
				offer(this.meanwhile);
			}
			return head;
		}

	}

}
