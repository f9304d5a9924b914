package dev.zklock.core;

import java.time.Duration;

import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import dev.zklock.LockRequest;
import dev.zklock.annotation.LockMode;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link LockMode#WRITE} with local hand-off meets the lock contract, and a writer
 * waiting behind a holder that downgrades is granted only after that READ is
 * released, whether it waits in the holder's process or in another one.
 */
class LocalHandoffWriteContractTests extends AbstractLockContractTests {

	private static final int DOWNGRADE_ROUNDS = 30;

	@Override
	protected LockRequest.Builder lock(String key) {
		return LockRequest.named("rw").keys(key).mode(LockMode.WRITE).localHandoff(true);
	}

	@Override
	protected int queuedWaiters(int holders) {
		return this.manager.getRegistry().waitingCount();
	}

	@ParameterizedTest(name = "{0} writer, {1} client(s)")
	@CsvSource({ "BLOCKING, 1", "ASYNC, 1", "BLOCKING, 2", "ASYNC, 2" })
	void aWriterBehindADowngradeIsGrantedOnlyAfterTheReadIsReleased(LockApi api, int clients) throws Exception {
		if (clients == 1) {
			runRounds(new DowngradeRounds(this.manager, this.manager, this.asyncManager, client, true), api);
			return;
		}
		String connectString = client.getZookeeperClient().getCurrentConnectionString();
		try (CuratorFramework other = ZooKeeperTestSupport.startClient(connectString);
				CuratorLockManager otherManager = new CuratorLockManager(other, this.basePath, Duration.ofSeconds(30));
				AsyncLockManager otherAsync = otherManager.async(null)) {
			runRounds(new DowngradeRounds(this.manager, otherManager, otherAsync, other, true), api);
		}
	}

	private void runRounds(DowngradeRounds rounds, LockApi api) throws Exception {
		for (int i = 0; i < DOWNGRADE_ROUNDS; i++) {
			rounds.round(api, "downgrade-" + i % 4);
		}
		assertThat(rounds.overlaps()).as("writer grants while the downgraded READ was held").isZero();
		assertThat(ephemeralNodes()).isEmpty();
	}

}
