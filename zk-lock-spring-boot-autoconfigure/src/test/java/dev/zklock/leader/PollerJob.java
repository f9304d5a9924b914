package dev.zklock.leader;

import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.jspecify.annotations.Nullable;

import dev.zklock.FencingToken;
import dev.zklock.LockContext;
import dev.zklock.annotation.Leader;

/**
 * A bean with {@code @Leader} methods for role {@value #ROLE}, recording what each
 * run saw of its leadership.
 */
public class PollerJob {

	static final String ROLE = "poller";

	private final List<Run> runs = new CopyOnWriteArrayList<>();

	private final CountDownLatch started = new CountDownLatch(1);

	private volatile CountDownLatch release = new CountDownLatch(0);

	private volatile @Nullable LockContext running;

	// accessors, as the bean is a proxy whose own fields are empty
	public List<Run> runs() {
		return this.runs;
	}

	public CountDownLatch started() {
		return this.started;
	}

	// the context of the pollSlowly() call under way, as the method itself sees it
	public @Nullable LockContext running() {
		return this.running;
	}

	public CountDownLatch holdRuns() {
		this.release = new CountDownLatch(1);
		return this.release;
	}

	@Leader(ROLE)
	public Optional<Long> poll(FencingToken token) {
		LockContext context = LockContext.current();
		this.runs.add(new Run(token.value(), context.fencingToken(), context.isHeld(), false));
		return Optional.of(token.value());
	}

	@Leader(ROLE)
	public void pollSlowly() throws InterruptedException {
		LockContext context = LockContext.current();
		this.running = context;
		this.started.countDown();
		boolean interrupted = false;
		try {
			this.release.await(30, TimeUnit.SECONDS);
		}
		catch (InterruptedException ex) {
			interrupted = true;
		}
		this.runs.add(new Run(context.fencingToken(), context.fencingToken(), context.isHeld(), interrupted));
	}

	/**
	 * What one run saw.
	 *
	 * @param parameterToken the token passed as a parameter
	 * @param contextToken the token of {@code LockContext.current()}
	 * @param heldAtEnd whether the leadership was held when the run ended
	 * @param interrupted whether the run was interrupted
	 */
	record Run(long parameterToken, long contextToken, boolean heldAtEnd, boolean interrupted) {

	}

}
