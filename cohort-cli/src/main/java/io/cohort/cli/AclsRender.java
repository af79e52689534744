package io.cohort.cli;

import io.cohort.api.v1.AclBinding;
import java.util.List;
import java.util.Locale;

/** Prints ACLs as a table (one ACL per row) or as JSON {@code {"<key>": [ {...}, ... ]}}. */
final class AclsRender {
    private AclsRender() {
    }

    static String acls(OutputFormat format, String key, List<AclBinding> acls) {
        if (format == OutputFormat.JSON) {
            return Json.write(Json.obj().put(key, Json.array(acls.stream().map(AclsRender::json).toList())));
        }
        Table table = new Table("PRINCIPAL", "HOST", "PERMISSION", "OPERATION", "RESOURCE_TYPE", "PATTERN_TYPE",
                "RESOURCE");
        for (AclBinding acl : acls) {
            table.row(acl.getPrincipal(), acl.getHost(), permission(acl), operation(acl), resourceType(acl),
                    patternType(acl), acl.getResourceName());
        }
        return table.render();
    }

    private static Json.Obj json(AclBinding acl) {
        return Json.obj().put("principal", acl.getPrincipal()).put("host", acl.getHost())
                .put("permission", permission(acl)).put("operation", operation(acl))
                .put("resource_type", resourceType(acl)).put("pattern_type", patternType(acl))
                .put("resource", acl.getResourceName());
    }

    private static String permission(AclBinding acl) {
        return strip(acl.getPermission().name(), "ACL_PERMISSION_");
    }

    private static String operation(AclBinding acl) {
        return strip(acl.getOperation().name(), "ACL_OPERATION_");
    }

    private static String resourceType(AclBinding acl) {
        return strip(acl.getResourceType().name(), "ACL_RESOURCE_TYPE_");
    }

    private static String patternType(AclBinding acl) {
        return strip(acl.getPatternType().name(), "ACL_PATTERN_TYPE_");
    }

    private static String strip(String name, String prefix) {
        return (name.startsWith(prefix) ? name.substring(prefix.length()) : name).toUpperCase(Locale.ROOT);
    }
}
