package dev.zklock.faults;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

import dev.zklock.testsupport.ServerMode;
import dev.zklock.testsupport.ZooKeeperEnsemble;

/**
 * The times an ensemble had no serving leader, sampled with {@code srvr} from a
 * thread of its own. While no member leads, no lock can be granted whatever the
 * client does, so scenario 2 adds the leaderless time inside each kill's window to
 * its bound, and reports each period: an ensemble that loses its new leader again
 * inside one window shows two periods, where the leaders' epochs only count
 * elections. Times are {@link System#nanoTime()}, each sample's when its answers are
 * in; a period opens at the first sample without a leader and closes at the first
 * with one, so each is known to within one sampling interval.
 */
final class LeaderlessPeriods implements AutoCloseable {

	private static final long INTERVAL_NANOS = TimeUnit.MILLISECONDS.toNanos(50);

	// whether a member leads now; asked from the sampler's thread
	private final BooleanSupplier led;

	private final Thread sampler;

	// closed periods, each {start, end}; guarded by this
	private final List<long[]> closed = new ArrayList<>();

	// start of the period under way, -1 while a member leads; guarded by this
	private long openSince = -1;

	private volatile boolean running = true;

	// what stopped the sampler before close(); guarded by this
	private RuntimeException failure;

	private LeaderlessPeriods(BooleanSupplier led) {
		this.led = led;
		this.sampler = new Thread(this::sample, "leaderless-periods");
		this.sampler.setDaemon(true);
	}

	/**
	 * Start sampling.
	 * @param ensemble the ensemble
	 * @return the periods, from now on
	 */
	static LeaderlessPeriods start(ZooKeeperEnsemble ensemble) {
		return start(() -> ensemble.modes().containsValue(ServerMode.LEADER));
	}

	/**
	 * Start sampling a question of whether a member leads.
	 * @param led asked every sampling interval, from the sampler's thread
	 * @return the periods, from now on
	 */
	static LeaderlessPeriods start(BooleanSupplier led) {
		LeaderlessPeriods periods = new LeaderlessPeriods(led);
		periods.sampler.start();
		return periods;
	}

	/**
	 * The periods without a leader that overlap a window, each cut to it; one still
	 * under way ends now.
	 * @param from the window's start
	 * @param to the window's end
	 * @return the periods, each {start, end}, in order
	 */
	synchronized List<long[]> within(long from, long to) {
		if (this.failure != null) {
			// without its samples the bound would be off either way: too loose or too tight
			throw new IllegalStateException("The leaderless-periods sampler stopped early", this.failure);
		}
		List<long[]> all = new ArrayList<>(this.closed);
		if (this.openSince >= 0) {
			all.add(new long[] { this.openSince, System.nanoTime() });
		}
		return clip(all, from, to);
	}

	/**
	 * Stop sampling, and wait for the last sample, so that none comes after.
	 */
	@Override
	public void close() {
		this.running = false;
		this.sampler.interrupt();
		try {
			this.sampler.join(TimeUnit.SECONDS.toMillis(5));
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	/**
	 * Cut periods to a window, dropping those outside it.
	 * @param periods periods, each {start, end}, in order
	 * @param from the window's start
	 * @param to the window's end
	 * @return the overlapping parts, in order
	 */
	static List<long[]> clip(List<long[]> periods, long from, long to) {
		List<long[]> inside = new ArrayList<>();
		for (long[] period : periods) {
			long start = Math.max(period[0], from);
			long end = Math.min(period[1], to);
			if (start < end) {
				inside.add(new long[] { start, end });
			}
		}
		return inside;
	}

	/**
	 * The sum of periods' lengths.
	 * @param periods periods, each {start, end}
	 * @return milliseconds
	 */
	static long totalMillis(List<long[]> periods) {
		long nanos = 0;
		for (long[] period : periods) {
			nanos += period[1] - period[0];
		}
		return TimeUnit.NANOSECONDS.toMillis(nanos);
	}

	private void sample() {
		try {
			while (this.running) {
				long begin = System.nanoTime();
				boolean leads = this.led.getAsBoolean();
				// the answers' time: a sample begun just before a kill must not open a period ahead of it
				record(System.nanoTime(), leads);
				LockSupport.parkNanos(begin + INTERVAL_NANOS - System.nanoTime());
			}
		}
		catch (RuntimeException ex) {
			synchronized (this) {
				this.failure = ex;
			}
		}
	}

	private synchronized void record(long now, boolean led) {
		if (!led && this.openSince < 0) {
			this.openSince = now;
		}
		else if (led && this.openSince >= 0) {
			this.closed.add(new long[] { this.openSince, now });
			this.openSince = -1;
		}
	}

}
