package dev.zklock.core;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import dev.zklock.LockHandle;
import dev.zklock.LockRequest;
import dev.zklock.annotation.LockMode;
import dev.zklock.testsupport.ZooKeeperSessions;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.awaitility.Awaitility.await;

/**
 * Fencing tokens are the creation zxids of the holders' nodes and strictly
 * increase across successive holders, in every mode and across session expiry.
 */
class FencingTokenTests extends AbstractZooKeeperTests {

	private static final int HOLDERS = 12;

	@ParameterizedTest
	@EnumSource(LockMode.class)
	void tokensOfSuccessiveHoldersStrictlyIncrease(LockMode mode) throws Exception {
		LockRequest request = LockRequest.named("account").keys("7").mode(mode).build();
		String lockPath = this.manager.pathFor("account", "7");
		List<Long> tokens = new ArrayList<>();
		for (int i = 0; i < HOLDERS; i++) {
			// alternate threads, so that each holder is a new node rather than a re-entry
			CompletableFuture<Long> token = new CompletableFuture<>();
			Thread holder = new Thread(() -> {
				try (LockHandle handle = this.manager.acquire(request)) {
					long value = handle.fencingToken();
					assertThat(ephemeralCzxids(client, lockPath)).containsExactly(value);
					token.complete(value);
				}
				catch (Throwable ex) {
					token.completeExceptionally(ex);
				}
			}, "holder-" + i);
			holder.start();
			tokens.add(token.get(20, TimeUnit.SECONDS));
		}
		assertThat(tokens).isSorted().doesNotHaveDuplicates().allSatisfy((token) -> assertThat(token).isPositive());
		System.out.printf("fencing: %s, %d successive holders, tokens %d .. %d%n", mode, HOLDERS, tokens.get(0),
				tokens.get(HOLDERS - 1));
	}

	@Test
	void readLockTakenByTheWriteHolderHasItsOwnLargerToken() {
		LockRequest write = LockRequest.named("doc").keys("1").mode(LockMode.WRITE).build();
		LockRequest read = LockRequest.named("doc").keys("1").mode(LockMode.READ).build();
		try (LockHandle writeHandle = this.manager.acquire(write)) {
			try (LockHandle readHandle = this.manager.acquire(read)) {
				assertThat(readHandle.fencingToken()).isGreaterThan(writeHandle.fencingToken());
			}
		}
	}

	@Test
	void severalKeysGiveATokenPerKeyAndTheLargestOverall() throws Exception {
		try (LockHandle handle = this.manager.acquire(LockRequest.named("transfer").keys("b", "a", "c").build())) {
			long a = handle.fencingToken("a");
			long b = handle.fencingToken("b");
			long c = handle.fencingToken("c");
			assertThat(ephemeralCzxids(client, this.manager.pathFor("transfer", "a"))).containsExactly(a);
			assertThat(ephemeralCzxids(client, this.manager.pathFor("transfer", "b"))).containsExactly(b);
			assertThat(ephemeralCzxids(client, this.manager.pathFor("transfer", "c"))).containsExactly(c);
			// keys are locked in sorted order, so the last key's node is the newest
			assertThat(a).isLessThan(b);
			assertThat(b).isLessThan(c);
			assertThat(handle.fencingToken()).isEqualTo(c);
			assertThatIllegalArgumentException().isThrownBy(() -> handle.fencingToken("d"))
				.withMessageContaining("'transfer'")
				.withMessageContaining("'d'");
		}
	}

	@Test
	void tokenStillGrowsAfterTheHoldersSessionExpired() throws Exception {
		CuratorFramework other = ZooKeeperTestSupport.startClient(server.getConnectString());
		CuratorLockManager otherManager = new CuratorLockManager(other, this.basePath, java.time.Duration.ofSeconds(10));
		try {
			LockRequest request = LockRequest.named("account").keys("9").build();
			LockHandle lost = otherManager.acquire(request);
			long lostToken = lost.fencingToken();
			ZooKeeperSessions.expire(other);
			await().atMost(java.time.Duration.ofSeconds(20)).until(() -> !lost.isHeld());
			try (LockHandle next = this.manager.acquire(request)) {
				assertThat(next.isAcquired()).isTrue();
				assertThat(next.fencingToken()).isGreaterThan(lostToken);
			}
			lost.close();
		}
		finally {
			otherManager.close();
			other.close();
		}
	}

	/**
	 * The creation zxids of the ephemeral nodes under a lock path (for a semaphore,
	 * its leases).
	 */
	static List<Long> ephemeralCzxids(CuratorFramework client, String lockPath) throws Exception {
		List<Long> czxids = new ArrayList<>();
		for (String path : ZooKeeperTestSupport.ephemeralNodes(client, lockPath)) {
			Stat stat = client.checkExists().forPath(path);
			if (stat != null) {
				czxids.add(stat.getCzxid());
			}
		}
		return czxids;
	}

}
