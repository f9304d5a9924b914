package dev.zklock.docs;

import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;

import dev.zklock.LockTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The recipe of docs/testing.md for tests that do not lock, run as written: with
 * {@code zk-lock.enabled=false} the application starts at once, without ZooKeeper (the
 * default connect string, localhost:2181, has no server here), and has no zk-lock bean.
 */
@SpringBootTest(properties = "zk-lock.enabled=false")
class ZkLockDisabledRecipeTests {

	@Autowired
	ObjectProvider<LockTemplate> locks;

	@Test
	void startsWithoutZooKeeper() {
		assertThat(this.locks.getIfAvailable()).isNull();
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class Application {

	}

}
