package dev.zklock.core;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReadWriteLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;

import org.apache.curator.framework.CuratorFramework;

import dev.zklock.LockHandle;
import dev.zklock.LockRequest;
import dev.zklock.annotation.LockMode;
import dev.zklock.faults.WorkerEvents;

/**
 * Main class of an application JVM for {@link ReadWriteExclusionProcessTests}: after
 * {@code go}, {@value #THREADS} threads take READ or WRITE on one key, half of them
 * WRITE, and a quarter of the writes downgrade: they take READ inside the WRITE,
 * release the WRITE, and hold the READ a while longer. Each interval in which a
 * thread holds a mode is reported ({@link WorkerEvents}) as {@code enter} and
 * {@code exit} with {@code CLOCK_MONOTONIC} times taken inside the acquire-release
 * bracket; its {@code thread} field is the thread's number with the mode, so that a
 * downgrade's WRITE and READ are two intervals of one thread.
 * <p>
 * Arguments: {@code --id=}, {@code --connect=} and {@code --local=true} for the
 * control, whose threads take a {@link ReentrantReadWriteLock} of this JVM instead.
 * Commands: {@code go}, {@code stop} (finish, report {@code done}, exit).
 */
public final class ReadWriteWorker {

	static final String BASE_PATH = "/read-write-processes";

	static final int THREADS = 4;

	private final String id;

	private final CuratorLockManager manager;

	private final ReadWriteLock local = new ReentrantReadWriteLock();

	private final boolean useLocal;

	private final AtomicBoolean stopped = new AtomicBoolean();

	private final AtomicLong intervals = new AtomicLong();

	private final AtomicLong downgrades = new AtomicLong();

	private final AtomicLong errors = new AtomicLong();

	private final AtomicLong localTokens = new AtomicLong();

	private ReadWriteWorker(String id, CuratorLockManager manager, boolean useLocal) {
		this.id = id;
		this.manager = manager;
		this.useLocal = useLocal;
	}

	public static void main(String[] args) throws Exception {
		Map<String, String> arguments = WorkerArguments.parse(args);
		String id = WorkerArguments.require(arguments, "id");
		CuratorFramework client = WorkerArguments.connect(WorkerArguments.require(arguments, "connect"), 10_000);
		CuratorLockManager manager = new CuratorLockManager(client, BASE_PATH, Duration.ofSeconds(30));
		ReadWriteWorker worker = new ReadWriteWorker(id, manager,
				Boolean.parseBoolean(arguments.getOrDefault("local", "false")));
		WorkerEvents.emit("ready", "id", id);
		worker.run();
		manager.close();
		client.close();
		System.exit(0);
	}

	private void run() throws InterruptedException {
		WorkerArguments.runThreads(this.id, THREADS, this::loop, this.stopped);
		WorkerEvents.emit("done", "id", this.id, "intervals", this.intervals.get(), "downgrades",
				this.downgrades.get(), "errors", this.errors.get());
	}

	private void loop(int thread) {
		ThreadLocalRandom random = ThreadLocalRandom.current();
		while (!this.stopped.get()) {
			try {
				int draw = random.nextInt(8);
				if (draw < 4) {
					read(thread);
				}
				else {
					write(thread, draw == 7);
				}
				// think time keeps the queue short, so that a writer often waits right behind a downgrade
				Thread.sleep(random.nextLong(5, 30));
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				return;
			}
			catch (RuntimeException ex) {
				this.errors.incrementAndGet();
				WorkerEvents.emit("error", "id", this.id, "thread", thread, "error", ex.toString().replace(' ', '_'));
			}
		}
	}

	private void read(int thread) throws InterruptedException {
		if (this.useLocal) {
			local(this.local.readLock(), thread, "R");
			return;
		}
		try (LockHandle read = this.manager.acquire(request(LockMode.READ))) {
			interval(thread, "R", read.fencingToken());
		}
	}

	// the control's stand-in for the distributed lock
	private void local(Lock lock, int thread, String mode) throws InterruptedException {
		lock.lock();
		try {
			interval(thread, mode, -this.localTokens.incrementAndGet());
		}
		finally {
			lock.unlock();
		}
	}

	// a downgrade's READ interval begins inside its WRITE interval and ends after it
	private void write(int thread, boolean downgrade) throws InterruptedException {
		if (this.useLocal) {
			local(this.local.writeLock(), thread, "W");
			return;
		}
		LockHandle write = this.manager.acquire(request(LockMode.WRITE));
		try {
			if (!downgrade) {
				interval(thread, "W", write.fencingToken());
				return;
			}
			long writeToken = write.fencingToken();
			long entered = enter(thread, "W", writeToken);
			hold();
			try (LockHandle read = this.manager.acquire(request(LockMode.READ))) {
				long readToken = read.fencingToken();
				enter(thread, "R", readToken);
				exit(thread, "W", writeToken, entered);
				write.close();
				this.downgrades.incrementAndGet();
				hold();
				exit(thread, "R", readToken, 0);
			}
		}
		finally {
			write.close();
		}
	}

	private void interval(int thread, String mode, long token) throws InterruptedException {
		long entered = enter(thread, mode, token);
		hold();
		exit(thread, mode, token, entered);
	}

	private long enter(int thread, String mode, long token) {
		long entered = System.nanoTime();
		WorkerEvents.emit("enter", "id", this.id, "thread", thread + "-" + mode, "token", token, "session", mode,
				"at", entered, "linger", false, "held", true);
		this.intervals.incrementAndGet();
		return entered;
	}

	private void exit(int thread, String mode, long token, long entered) {
		WorkerEvents.emit("exit", "id", this.id, "thread", thread + "-" + mode, "token", token, "at",
				Math.max(entered, System.nanoTime()));
	}

	private static void hold() throws InterruptedException {
		Thread.sleep(ThreadLocalRandom.current().nextLong(1, 8));
	}

	private static LockRequest request(LockMode mode) {
		return LockRequest.named("ledger").keys("account-7").mode(mode).timeout(Duration.ofSeconds(30)).build();
	}

}
