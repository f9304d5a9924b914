package dev.zklock.core;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link WriteLockContractTests} against a ZooKeeper 3.5 server (the oldest supported
 * line) in its own JVM. The superclass starts an in-JVM server of the current line
 * first; its client is replaced by one on the 3.5 server before any test runs.
 */
class ZooKeeper35WriteLockContractTests extends WriteLockContractTests {

	@BeforeAll
	static void useZooKeeper35() throws Exception {
		assertThat(ZooKeeper35.server().version()).startsWith("3.5.");
		client.close();
		client = ZooKeeper35.connect();
	}

	// runs before the superclass's, which closes the client
	@AfterAll
	static void checkThatTheTestsRanOnZooKeeper35() {
		assertThat(client.getZookeeperClient().getCurrentConnectionString())
			.isEqualTo(ZooKeeper35.server().connectString())
			.isNotEqualTo(server.getConnectString());
	}

}
