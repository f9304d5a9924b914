package dev.zklock.core;

import java.time.Duration;
import java.util.List;
import java.util.UUID;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.utils.ZKPaths;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import dev.zklock.LockHandle;
import dev.zklock.LockRequest;
import dev.zklock.annotation.LockMode;
import dev.zklock.testsupport.ClassFixture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * When the sweep removes a lock's empty container and a later holder recreates it,
 * the node's sequence suffix starts over, but the fencing token (its creation zxid)
 * still grows.
 */
class FencingTokenContainerTests {

	@RegisterExtension
	static final ClassFixture<SweepingZooKeeper> zookeeper = ClassFixture.of(SweepingZooKeeper::start);

	private static CuratorFramework client() {
		return zookeeper.get().client();
	}

	@ParameterizedTest
	@EnumSource(LockMode.class)
	void tokenGrowsAcrossContainerRecreation(LockMode mode) throws Exception {
		String basePath = "/recreate-" + UUID.randomUUID();
		try (CuratorLockManager manager = new CuratorLockManager(client(), basePath, Duration.ofSeconds(10))) {
			LockRequest request = LockRequest.named("ledger").keys("1").mode(mode).build();
			String lockPath = manager.pathFor("ledger", "1");
			long first;
			String firstSequence;
			try (LockHandle handle = manager.acquire(request)) {
				first = handle.fencingToken();
				firstSequence = sequenceOfHeldNode(lockPath);
			}
			await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(50))
				.until(() -> client().checkExists().forPath(ZKPaths.getPathAndNode(lockPath).getPath()) == null);
			try (LockHandle handle = manager.acquire(request)) {
				assertThat(sequenceOfHeldNode(lockPath)).as("sequence suffix after recreation")
					.isEqualTo(firstSequence);
				assertThat(handle.fencingToken()).isGreaterThan(first);
			}
		}
	}

	private static String sequenceOfHeldNode(String lockPath) throws Exception {
		List<String> nodes = ZooKeeperTestSupport.ephemeralNodes(client(), lockPath);
		assertThat(nodes).hasSize(1);
		String node = nodes.get(0);
		return node.substring(node.length() - 10);
	}

}
