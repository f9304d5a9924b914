package dev.zklock.autoconfigure;

import java.util.List;

import org.apache.curator.framework.api.ACLProvider;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.data.ACL;

/**
 * Gives every node the client creates the {@code CREATOR_ALL} ACL: only the
 * authenticated identity that created a node may read or change it.
 */
final class CreatorAllAclProvider implements ACLProvider {

	@Override
	public List<ACL> getDefaultAcl() {
		return ZooDefs.Ids.CREATOR_ALL_ACL;
	}

	@Override
	public List<ACL> getAclForPath(String path) {
		return ZooDefs.Ids.CREATOR_ALL_ACL;
	}

}
