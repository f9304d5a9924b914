package dev.zklock.docs;

import java.nio.charset.StandardCharsets;

import org.apache.curator.framework.CuratorFramework;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.annotation.Transactional;

import dev.zklock.FencingToken;
import dev.zklock.LockContext;
import dev.zklock.LockHandle;
import dev.zklock.LockRequest;
import dev.zklock.LockTemplate;
import dev.zklock.annotation.DistributedLock;
import dev.zklock.docs.DocsModel.Resource;

/**
 * The fencing examples of docs/failures.md. {@code FencingPatternTests} runs the same
 * SQL condition and multi-op against real ZooKeeper.
 */
class FencingSnippets {

	private final JdbcTemplate jdbc;

	private final LockTemplate lockTemplate;

	private final CuratorFramework curator;

	FencingSnippets(JdbcTemplate jdbc, LockTemplate lockTemplate, CuratorFramework curator) {
		this.jdbc = jdbc;
		this.lockTemplate = lockTemplate;
		this.curator = curator;
	}

	@DistributedLock(key = "#accountId", timeout = "5s")
	public void debit(String accountId, long amount, FencingToken token) {
		// a debit fenced like the credit below
		jdbc.update("UPDATE account SET balance = balance - ?, fence = ? WHERE id = ? AND fence <= ?", amount,
				token.value(), accountId, token.value());
	}

	void fromTheContext() {
		long token = LockContext.current().fencingToken();
	}

	void fromAHandle(LockRequest request) {
		try (LockHandle handle = lockTemplate.tryAcquire(request)) {
			long token = handle.fencingToken();
		}
	}

	@DistributedLock(key = "#accountId", timeout = "5s")
	@Transactional
	public void credit(String accountId, long amount, FencingToken token) {
		int updated = jdbc.update(
				"UPDATE account SET balance = balance + ?, fence = ? WHERE id = ? AND fence <= ?",
				amount, token.value(), accountId, token.value());
		if (updated == 0) {
			throw new IllegalStateException("Account " + accountId + " was written by a newer lock holder");
		}
	}

	void setFeature(String text) throws Exception {
		byte[] value = text.getBytes(StandardCharsets.UTF_8);
		LockContext lock = LockContext.current();
		curator.transaction().forOperations(
				curator.transactionOp().check().forPath(lock.nodePath()),
				curator.transactionOp().setData().forPath("/config/feature-x", value));
	}

	void writeChecked(Resource resource) {
		LockContext lock = LockContext.current();
		lock.assertHeld();        // throws LockLostException naming the lock and key
		resource.write(lock.fencingToken());
	}

}
