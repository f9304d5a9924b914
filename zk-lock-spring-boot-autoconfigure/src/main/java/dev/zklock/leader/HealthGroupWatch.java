package dev.zklock.leader;

import java.time.Duration;

import org.springframework.boot.health.contributor.Status;

/**
 * Whether the roles that follow one health group stand aside: from the moment the
 * group has been {@code DOWN} or {@code OUT_OF_SERVICE} for the yield-after, until
 * it is {@code UP} again. A shorter spell moves nothing, so one failed probe does
 * not move leadership. Fed the group's status at every poll, with the poll's time.
 */
final class HealthGroupWatch {

	private final long yieldAfterNanos;

	private boolean down;

	private long downSince;

	private boolean aside;

	HealthGroupWatch(Duration yieldAfter) {
		this.yieldAfterNanos = yieldAfter.toNanos();
	}

	/**
	 * Take the group's status.
	 * @param status the status just read
	 * @param nanoTime when, from {@link System#nanoTime()}
	 * @return whether the roles now stand aside when they did not, or the reverse
	 */
	boolean observe(Status status, long nanoTime) {
		if (Status.DOWN.equals(status) || Status.OUT_OF_SERVICE.equals(status)) {
			if (!this.down) {
				this.down = true;
				this.downSince = nanoTime;
			}
			if (!this.aside && nanoTime - this.downSince >= this.yieldAfterNanos) {
				this.aside = true;
				return true;
			}
			return false;
		}
		// UNKNOWN or a custom status ends a spell, but only UP lets the roles compete again
		this.down = false;
		if (this.aside && Status.UP.equals(status)) {
			this.aside = false;
			return true;
		}
		return false;
	}

	/**
	 * Whether the roles stand aside.
	 * @return whether they do
	 */
	boolean isAside() {
		return this.aside;
	}

	/**
	 * How long the current spell of DOWN or OUT_OF_SERVICE has lasted.
	 * @param nanoTime now, from {@link System#nanoTime()}
	 * @return the time, zero when the group is not down
	 */
	Duration downFor(long nanoTime) {
		return this.down ? Duration.ofNanos(nanoTime - this.downSince) : Duration.ZERO;
	}

}
