package dev.zklock.shedlock;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.LockProvider;
import net.javacrumbs.shedlock.core.SimpleLock;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import dev.zklock.LockConnectionException;
import dev.zklock.LockManager;
import dev.zklock.LockState;
import dev.zklock.autoconfigure.DistributedLockAutoConfiguration;
import dev.zklock.autoconfigure.ZkLockAutoConfiguration;
import dev.zklock.core.CuratorLockManager;
import dev.zklock.core.InstrumentedLockManager;
import dev.zklock.shedlock.autoconfigure.ZkLockShedLockAutoConfiguration;
import dev.zklock.testsupport.InJvmZooKeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * {@link ZkLockProvider#lock} while the ZooKeeper server is stopped, as its Javadoc
 * says: it throws {@link LockConnectionException} at once, never an empty result
 * (which ShedLock reads as "held elsewhere"); a lock held through the outage stays
 * held, and once the server is back the provider locks again and nothing is left.
 */
class ZkLockProviderOutageTests {

	private static final Duration WAIT = Duration.ofSeconds(30);

	@Test
	void lockThrowsLockConnectionExceptionAtOnceWhileTheServerIsStopped() {
		try (InJvmZooKeeper server = InJvmZooKeeper.builder().start()) {
			runner(server).run((context) -> {
				LockProvider provider = context.getBean(LockProvider.class);
				CuratorLockManager manager = (CuratorLockManager) InstrumentedLockManager
					.unwrap(context.getBean(LockManager.class));
				SimpleLock held = provider.lock(config("held")).orElseThrow();
				server.stop();
				await().atMost(WAIT).until(() -> manager.getReachability().isUnreachable());
				long start = System.nanoTime();
				assertThatExceptionOfType(LockConnectionException.class)
					.isThrownBy(() -> provider.lock(config("other")))
					.withMessageContaining("'other'")
					.withMessageContaining("unreachable");
				assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(1));
				server.start();
				await().atMost(WAIT).until(() -> manager.getRegistry().count(LockState.IN_DOUBT) == 0);
				SimpleLock other = await().atMost(WAIT)
					.until(() -> provider.lock(config("other")), Optional::isPresent)
					.orElseThrow();
				assertThat(provider.lock(config("held"))).as("held through the outage").isEmpty();
				other.unlock();
				held.unlock();
				await().atMost(WAIT).until(() -> manager.getRegistry().snapshot().isEmpty());
			});
		}
	}

	private static ApplicationContextRunner runner(InJvmZooKeeper server) {
		return new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(ZkLockAutoConfiguration.class,
					DistributedLockAutoConfiguration.class, ZkLockShedLockAutoConfiguration.class))
			.withPropertyValues("zk-lock.connect-string=" + server.connectString(), "zk-lock.base-path=/outage",
					"zk-lock.connection-timeout=1s", "zk-lock.retry.max-retries=1");
	}

	private static LockConfiguration config(String name) {
		return new LockConfiguration(Instant.now(), name, Duration.ofSeconds(30), Duration.ZERO);
	}

}
