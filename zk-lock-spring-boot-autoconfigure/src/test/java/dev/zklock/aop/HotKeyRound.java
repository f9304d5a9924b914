package dev.zklock.aop;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;

import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;

import dev.zklock.core.CuratorLockManager;
import dev.zklock.core.InstrumentedLockManager;
import dev.zklock.LockManager;
import dev.zklock.core.LockRegistry;

import static org.awaitility.Awaitility.await;

/**
 * One round of calls on a hot key: a first call holds the key until
 * {@link #finish()}, and more calls queue behind it meanwhile, each on a thread of
 * its own or as pending asynchronous work.
 */
public final class HotKeyRound implements AutoCloseable {

	/**
	 * How long a round waits for anything.
	 */
	public static final Duration WAIT = Duration.ofSeconds(30);

	private final CompletableFuture<Void> release = new CompletableFuture<>();

	private final List<CompletableFuture<Long>> calls = new ArrayList<>();

	private HotKeyRound() {
	}

	/**
	 * A runner with the lock auto-configuration, a {@link HotKeyService} bean and
	 * waits long enough for a round.
	 * @return the runner
	 */
	public static ApplicationContextRunner contextRunner() {
		return TestZooKeeper.contextRunner()
			.withBean(HotKeyService.class)
			.withPropertyValues("zk-lock.default-timeout=" + WAIT.toSeconds() + "s");
	}

	/**
	 * Start the holder, and once it holds, the waiters; return once they all wait.
	 * @param context the context whose lock manager the calls lock with
	 * @param call starts one locked call that holds until its release completes
	 * @param waiters how many calls queue behind the holder
	 * @return the round, with the holder holding and the waiters queued
	 */
	public static HotKeyRound start(ApplicationContext context, Call call, int waiters) {
		LockRegistry registry = manager(context).getRegistry();
		HotKeyRound round = new HotKeyRound();
		round.calls.add(call.start(round.release));
		await("the first call holds").atMost(WAIT).until(() -> registry.heldCount() == 1);
		for (int i = 0; i < waiters; i++) {
			round.calls.add(call.start(CompletableFuture.completedFuture(null)));
		}
		await("the others wait").atMost(WAIT).until(() -> registry.waitingCount() == waiters);
		return round;
	}

	/**
	 * Calls of {@link HotKeyService#blocking} on one key, each on a thread of its
	 * own.
	 * @param context the context with the service
	 * @param threads where the calls run
	 * @param key the key
	 * @return the call
	 */
	public static Call blocking(ApplicationContext context, Executor threads, String key) {
		HotKeyService service = context.getBean(HotKeyService.class);
		return (release) -> CompletableFuture.supplyAsync(() -> service.blocking(key, null, release), threads);
	}

	/**
	 * Release the holder and collect what every call answered.
	 * @return the fencing token of each call, the holder's first
	 */
	public List<Long> finish() throws Exception {
		this.release.complete(null);
		List<Long> tokens = new ArrayList<>();
		for (CompletableFuture<Long> call : this.calls) {
			tokens.add(call.get(WAIT.toSeconds(), TimeUnit.SECONDS));
		}
		return tokens;
	}

	@Override
	public void close() {
		this.release.complete(null);
	}

	/**
	 * The engine behind the context's lock manager.
	 * @param context the application context
	 * @return the manager
	 */
	public static CuratorLockManager manager(ApplicationContext context) {
		return (CuratorLockManager) InstrumentedLockManager.unwrap(context.getBean(LockManager.class));
	}

	/**
	 * Starts one locked call.
	 */
	@FunctionalInterface
	public interface Call {

		/**
		 * Start the call.
		 * @param release completes when the call may return
		 * @return completes with the fencing token the call held with
		 */
		CompletableFuture<Long> start(CompletableFuture<Void> release);

	}

}
